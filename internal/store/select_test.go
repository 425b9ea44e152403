package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/sysinfo"
)

func TestParseSelector(t *testing.T) {
	for in, want := range map[string]Selector{
		"label:on":                                {Label: "on"},
		"label:on,cpu:AMD EPYC 7763":              {Label: "on", CPU: "AMD EPYC 7763"},
		"cpu:Weird, Inc. CPU,kernel:6.18.0":       {CPU: "Weird, Inc. CPU", Kernel: "6.18.0"},
		"host:box,label:off,kernel:6.1.0-27":      {Host: "box", Label: "off", Kernel: "6.1.0-27"},
		"kernel:6.6.87.2-microsoft-standard-WSL2": {Kernel: "6.6.87.2-microsoft-standard-WSL2"},
	} {
		got, err := ParseSelector(in)
		if err != nil || got != want {
			t.Errorf("ParseSelector(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"label:":             "label: needs a value",
		"label:on,label:off": "label: given twice",
		"cpu:x,host:":        "host: needs a value",
		"nothing:here":       "is not one of",
	} {
		_, err := ParseSelector(in)
		var se *SelectorError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSelector(%q) = %v, want %q", in, err, msg)
		}
	}
}

func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"label:on", "label:on,cpu:EPYC", "cpu:a,b,kernel:6", "host:", ",", "label:on,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			return
		}
		// Whatever parsed selects a run with exactly those properties.
		env := map[string]any{"hostname": sel.Host, "kernel": map[string]any{"release": sel.Kernel}, "cpu": map[string]any{"model_name": sel.CPU}}
		if !sel.Matches(sel.Label, env) {
			t.Fatalf("%q: %+v does not match its own values", s, sel)
		}
	})
}

// testSelectors: side selectors pick runs by label, host, CPU model and
// kernel, combined; a selector that matches nothing lists what there is.
func testSelectors(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	mk := func(id, label, host, cpu, kernel string) {
		r := testRun(id, label)
		r.Env = &sysinfo.Snapshot{Hostname: host, Kernel: sysinfo.Kernel{Release: kernel}, CPU: sysinfo.CPU{ModelName: cpu}}
		if err := d.Begin(r); err != nil {
			t.Fatal(err)
		}
	}
	mk("r1", "on", "epyc-1", "AMD EPYC 7763 64-Core Processor", "6.1.0")
	mk("r2", "off", "epyc-1", "AMD EPYC 7763 64-Core Processor", "6.1.0")
	mk("r3", "on", "xeon-1", "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "6.1.0")
	mk("r4", "on", "epyc-2", "AMD EPYC 7763 64-Core Processor", "6.12.0")
	for ref, want := range map[string][]string{
		"label:on":                   {"r1", "r3", "r4"},
		"label:on,cpu:epyc":          {"r1", "r4"},
		"cpu:EPYC 7763,kernel:6.1.0": {"r1", "r2"},
		"host:epyc-1":                {"r1", "r2"},
		"label:off,host:epyc-1":      {"r2"},
	} {
		ids, how, err := d.Resolve(ctx, ref)
		if err != nil || how != BySelector || !cmp.Equal(ids, want) {
			t.Errorf("Resolve(%q) = %v, %v, %v; want %v", ref, ids, how, err, want)
		}
	}
	_, _, err := d.Resolve(ctx, "cpu:POWER9")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "host:xeon-1") || !strings.Contains(err.Error(), "kernel:6.12.0") {
		t.Errorf("no match: %v", err)
	}
}
