package attribute

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

func planOf(t *testing.T, fixture string) *Design {
	t.Helper()
	s, err := sysinfo.Collect(filepath.Join("..", "sysinfo", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakeDesign(s, kb)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func names(cs []bootconfig.Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		fixture, kind string
		want          []string
		skipped       []string // prefixes of the skip lines
	}{
		// No no-retbleed on this 6.18 Intel guest: retbleed_update_mitigation
		// sets retbleed to EIBRS while spectre_v2 runs eIBRS, so retbleed=off
		// changes nothing (the model's intel-ibrs-trumps-retbleed rule).
		// spectre_v2=off takes retbleed's eIBRS and ITS with it
		// (retbleed_update_mitigation, its_update_mitigation: issue 37),
		// so it is one configuration of three files, named by the first.
		{"wsl2-intel-on", KindLeaveOneOut, []string{"on", "off", "no-indirect_target_selection", "no-mmio_stale_data",
			"no-retbleed", "no-spectre_v1", "no-spec_store_bypass"}, nil},
		{"wsl2-intel-on", KindCumulative, []string{"on", "no-indirect_target_selection", "cum-2", "cum-3", "cum-4", "cum-5", "off"}, nil},
		{"wsl2-intel-on", KindStudy, []string{"on", "off", "study-off", "rest-only"}, []string{"mitigations-only: the same parameters as off"}},
		// The VERW users go together: mds=off and mmio_stale_data=off
		// alone change nothing, no-verw switches them off at once.
		{"intel-baremetal", KindLeaveOneOut, []string{"on", "off", "no-meltdown", "no-retbleed", "no-spectre_v2", "no-gather_data_sampling",
			"no-spectre_v1", "no-srbds", "no-spec_store_bypass", "no-verw"}, []string{"no-mds: ", "no-mmio_stale_data: "}},
	} {
		sel, err := planOf(t, tc.fixture).Select(tc.kind)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.fixture, tc.kind, err)
		}
		if got := names(sel.Configs); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: configurations %v, want %v", tc.fixture, tc.kind, got, tc.want)
		}
		if len(sel.Skipped) != len(tc.skipped) {
			t.Errorf("%s %s: skipped %q, want %q", tc.fixture, tc.kind, sel.Skipped, tc.skipped)
			continue
		}
		for i, s := range tc.skipped {
			if !strings.HasPrefix(sel.Skipped[i], s) {
				t.Errorf("%s %s: skipped %q, want %q…", tc.fixture, tc.kind, sel.Skipped[i], s)
			}
		}
		// What a campaign or lab gets is a valid plan of configurations.
		var specs []string
		for _, c := range sel.Configs {
			specs = append(specs, c.Name+"="+c.String())
		}
		if _, err := bootconfig.ParseAll(append([]string{"on"}, specs[1:]...)); err != nil {
			t.Errorf("%s %s: %v", tc.fixture, tc.kind, err)
		}
	}
	if _, err := planOf(t, "wsl2-intel-on").Select("everything"); !errors.Is(err, bootconfig.ErrConfig) || !strings.Contains(err.Error(), "leave-one-out, cumulative, study") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := planOf(t, "container-novulns").Select(KindLeaveOneOut); err == nil {
		t.Errorf("a kernel without vulnerability files has a leave-one-out plan")
	}
}
