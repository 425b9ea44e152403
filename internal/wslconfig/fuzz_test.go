package wslconfig

import (
	"bytes"
	"github.com/sectax/sectax/internal/mitigation"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func addCorpus(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.wslconfig")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseWrite: whatever Parse accepts comes back byte for byte, and an
// edit gives a file that parses, keeps the encoding and every other
// setting, and holds exactly the asked-for parameters.
func FuzzParseWrite(f *testing.F) {
	addCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := Parse(data)
		if err != nil {
			_, isLine := err.(*LineError)
			_, isSize := err.(*SizeError)
			if !isLine && !isSize {
				t.Fatalf("parse error without a line: %v", err)
			}
			return
		}
		if got := pf.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("round trip:\n got %q\nwant %q", got, data)
		}
		checkEdit(t, pf, "set", []string{"mitigations=off", "audit=0"}, pf.Set)
		checkEdit(t, pf, "unset", []string{"mitigations"}, pf.Unset)
	})
}

func checkEdit(t *testing.T, pf *File, name string, params []string, edit func([]string) (*File, Result, error)) {
	t.Helper()
	nf, res, err := edit(params)
	if err != nil {
		if pf.refusal() == nil {
			_, isLine := err.(*LineError)
			_, isSize := err.(*SizeError)
			if !isLine && !isSize {
				t.Fatalf("%s failed on a clean file: %v", name, err)
			}
		}
		return
	}
	out := nf.Bytes()
	back, err := Parse(out)
	if err != nil {
		t.Fatalf("%s wrote a file that does not parse: %v\n%q", name, err, out)
	}
	if back.Encoding() != pf.Encoding() {
		t.Fatalf("%s changed the encoding %v → %v", name, pf.Encoding(), back.Encoding())
	}
	if !res.Changed && !bytes.Equal(out, pf.Bytes()) {
		t.Fatalf("%s reported no change but changed the bytes", name)
	}
	if !slices.EqualFunc(others(pf.entries), others(back.entries), sameSetting) {
		t.Fatalf("%s changed another setting:\n%q\n→\n%q", name, pf.Text(), back.Text())
	}
	e, ok := back.KernelCommandLine()
	var kern []mitigation.Param
	if ok {
		kern = mitigation.ParseCmdline(e.Value).Params
	}
	switch name {
	case "set":
		for _, p := range params {
			n := 0
			want := mitigation.ParseCmdline(p).Params[0]
			for _, tk := range kern {
				if mitigation.SameSetting(tk, want) {
					n++
					if tk.Raw != p {
						t.Fatalf("set left %q beside %q: %q", tk.Raw, p, e.Value)
					}
				}
			}
			if n != 1 {
				t.Fatalf("set: %q is there %d times in %q", p, n, e.Value)
			}
		}
	case "unset":
		for _, tk := range kern {
			if tk.Key() == "mitigations" {
				t.Fatalf("unset left %q in %q", tk.Raw, e.Value)
			}
		}
	}
}
