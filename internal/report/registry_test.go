package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// TestRegistryRefuses: a format a model has no renderer for is a usage
// error in the one wording, naming the accepted formats in the help's
// order, and nothing is written.
func TestRegistryRefuses(t *testing.T) {
	ra, rb := runSides()
	c := comparison(t, ra, rb)
	var b bytes.Buffer
	err := ComparisonFormats.Render(&b, "yaml", c, Options{})
	want := `--format "yaml" is not accepted (accepted: text, md, json, csv, benchfmt, html)`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	if exit.Of(err) != exit.Usage {
		t.Errorf("kind %v, want usage", exit.Of(err))
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes for a refused format", b.Len())
	}
	if err := AttributionFormats.Check("csv"); err == nil || err.Error() != `--format "csv" is not accepted (accepted: text, md, json, html)` {
		t.Errorf("attribution accepts csv: %v", err)
	}
	if err := RunFormats.Check("json"); err != nil {
		t.Errorf("json refused: %v", err)
	}
	names := ComparisonFormats.Names()
	names[0] = "changed"
	if ComparisonFormats.Names()[0] != "text" {
		t.Error("Names hands out the registry's own slice")
	}
}

// TestFormatTables: every format of every table has a description, and
// --format's help is made from the table, in its order.
func TestFormatTables(t *testing.T) {
	tables := map[string]FormatList{
		"comparison": ComparisonFormats.List(), "attribution": AttributionFormats.List(), "fleet": FleetFormats.List(),
		"decision": DecisionFormats.List(), "probes": ProbesFormats.List(), "advice": AdviceFormats.List(),
		"verification": VerificationFormats.List(), "baselines": BaselinesFormats.List(), "env": EnvFormats.List(),
		"list": ListFormats.List(), "workloads": WorkloadsFormats.List(), "wslconfig": WSLConfigFormats.List(),
		"plan": PlanFormats.List(), "run": RunFormats.List(), "crosscheck": CrosscheckFormats.List(),
		"campaign status": CampaignStatusFormats.List(), "store change": StoreChangeFormats.List(),
		"show": ShowFormats, "export": ExportFormats, "campaign preview": CampaignPreviewFormats.List(),
		"lab preview": LabPreviewFormats.List(), "lab matrix": LabMatrixFormats.List(),
	}
	for name, l := range tables {
		if len(l) == 0 {
			t.Errorf("%s: no formats", name)
		}
		for _, f := range l {
			if f.Name == "" || f.Desc == "" || strings.Contains(f.Desc, "\n") {
				t.Errorf("%s: format %q has description %q (want one line)", name, f.Name, f.Desc)
			}
		}
	}
	got := ExportFormats.Usage()
	want := "output format:\n  json        an array of documents\n  jsonl       one document per line\n  prometheus  node_exporter textfile"
	if got != want {
		t.Errorf("Usage() = %q, want %q", got, want)
	}
	if err := ExportFormats.Check("yaml"); err == nil || err.Error() != `--format "yaml" is not accepted (accepted: json, jsonl, prometheus)` {
		t.Errorf("Check(yaml) = %v", err)
	}
	l := ComparisonFormats.List()
	l[0].Name = "changed"
	if ComparisonFormats.Names()[0] != "text" {
		t.Error("List hands out the registry's own table")
	}
}
