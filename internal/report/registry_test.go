package report

import (
	"bytes"
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
	if err := CheckFormat("json", "text", "json"); err != nil {
		t.Errorf("json refused: %v", err)
	}
	names := ComparisonFormats.Names()
	names[0] = "changed"
	if ComparisonFormats.Names()[0] != "text" {
		t.Error("Names hands out the registry's own slice")
	}
}
