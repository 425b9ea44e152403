package wslconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/testutil"
)

// The edits every corpus file gets; the goldens hold their results.
var (
	setParams   = []string{"mitigations=off", "audit=0"}
	unsetParams = []string{"mitigations"}
)

func corpus(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.wslconfig")
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %v files, %v", len(files), err)
	}
	return files
}

// describe is the golden text of what sectax reads from a file and what
// set and unset make of it.
func describe(data []byte) (desc string, set, unset []byte) {
	var b strings.Builder
	f, err := Parse(data)
	if err != nil {
		fmt.Fprintf(&b, "parse error: %v\n", err)
		return b.String(), nil, nil
	}
	fmt.Fprintf(&b, "encoding: %s\nline endings: %s\n", f.Encoding(), f.LineEndings())
	for _, s := range f.sections {
		fmt.Fprintf(&b, "section: line %d: [%s]\n", s.line, s.name)
	}
	for _, e := range f.Entries() {
		sh := ""
		if e.Shadowed {
			sh = " (shadowed)"
		}
		fmt.Fprintf(&b, "entry: line %d: %q = %q raw %q%s\n", e.Line, e.Name(), e.Value, e.Raw, sh)
	}
	if e, ok := f.KernelCommandLine(); ok {
		fmt.Fprintf(&b, "kernelCommandLine: line %d: %q params %q\n", e.Line, e.Value, mitigation.Tokens(e.Value))
	} else {
		fmt.Fprintf(&b, "kernelCommandLine: absent\n")
	}
	for _, d := range f.Diagnostics() {
		fmt.Fprintf(&b, "diagnostic: line %d: refuse=%v: %s\n", d.Line, d.Refuse, d.Msg)
	}
	for _, d := range f.Warnings() {
		fmt.Fprintf(&b, "warning: line %d: %s\n", d.Line, d.Msg)
	}
	edit := func(name string, params []string, fn func([]string) (*File, Result, error)) []byte {
		nf, res, err := fn(params)
		if err != nil {
			fmt.Fprintf(&b, "%s %s: error: %v\n", name, strings.Join(params, " "), err)
			return nil
		}
		j, _ := json.Marshal(res)
		fmt.Fprintf(&b, "%s %s: %s\n", name, strings.Join(params, " "), j)
		if !res.Changed {
			return nil
		}
		return nf.Bytes()
	}
	set = edit("set", setParams, f.Set)
	unset = edit("unset", unsetParams, f.Unset)
	return b.String(), set, unset
}

func TestCorpusGolden(t *testing.T) {
	for _, file := range corpus(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".wslconfig")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			desc, set, unset := describe(data)
			testutil.Golden(t, filepath.Join("testdata", "golden", name+".show.txt"), []byte(desc))
			for ext, got := range map[string][]byte{".set.wslconfig": set, ".unset.wslconfig": unset} {
				if path := filepath.Join("testdata", "golden", name+ext); got == nil {
					testutil.Absent(t, path) // the edit is refused: no file
				} else {
					testutil.Golden(t, path, got)
				}
			}
		})
	}
}

// TestRoundTrip: every file WSL can read comes back byte for byte.
func TestRoundTrip(t *testing.T) {
	parsed := 0
	for _, file := range corpus(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data)
		if err != nil {
			continue
		}
		parsed++
		if got := f.Bytes(); !bytes.Equal(got, data) {
			t.Errorf("%s: round trip changed the bytes:\n got %q\nwant %q", file, got, data)
		}
	}
	if parsed < 20 {
		t.Errorf("only %d corpus files parsed", parsed)
	}
}

// TestRefuseWhatIsNotAWSLConfig: a file that is not a .wslconfig (a
// shadow file reached through --path LINK) is refused by set and unset;
// it used to get a [wsl2] section.
func TestRefuseWhatIsNotAWSLConfig(t *testing.T) {
	for _, text := range []string{
		"root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
		"#!/bin/sh\nexec rm -rf /\n",
	} {
		f, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Set([]string{"mitigations=off"}); err == nil || !strings.Contains(err.Error(), "not a .wslconfig") {
			t.Errorf("set on %q: %v", text, err)
		}
		if _, _, err := f.Unset([]string{"mitigations"}); err == nil || !strings.Contains(err.Error(), "not a .wslconfig") {
			t.Errorf("unset on %q: %v", text, err)
		}
	}
	// Real files still edit: empty, sections only, a skipped typo in one.
	for _, text := range []string{"", "[wsl2]\nmemory=8GB\n", "[wsl2]\nmemory 8GB\nswap=0\n", "# just a comment\n"} {
		f, _ := Parse([]byte(text))
		if _, _, err := f.Set([]string{"mitigations=off"}); err != nil {
			t.Errorf("set on %q: %v", text, err)
		}
	}
}
