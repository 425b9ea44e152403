package wslconfig

import (
	"strings"
	"testing"
)

// TestLargeFileLinear: a large file (many duplicate keys) parses and edits
// without quadratic work; a regression for what the fuzzer stalled on.
func TestLargeFileLinear(t *testing.T) {
	data := "[wsl2]\n" + strings.Repeat("memory=1GB\n", 5000) + "kernelCommandLine=quiet\n"
	f, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	nf, res, err := f.Set([]string{"mitigations=off"})
	if err != nil || !res.Changed || res.Line != 5002 {
		t.Fatalf("set: %+v %v", res, err)
	}
	if !strings.HasSuffix(nf.Text(), "kernelCommandLine=quiet mitigations=off\n") {
		t.Fatalf("unexpected tail %q", nf.Text()[len(nf.Text())-60:])
	}
}

func TestTooLarge(t *testing.T) {
	_, err := Parse([]byte(strings.Repeat("#", MaxSize+1)))
	if _, ok := err.(*SizeError); !ok {
		t.Fatalf("got %v, want a SizeError", err)
	}
	if _, err := Parse([]byte(strings.Repeat("#", MaxSize))); err != nil {
		t.Fatalf("a file of MaxSize bytes: %v", err)
	}
}
