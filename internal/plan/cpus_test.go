package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCPUList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
		str  string
	}{
		{"0", []int{0}, "0"},
		{"0-3", []int{0, 1, 2, 3}, "0-3"},
		{"3,0-1,1", []int{0, 1, 3}, "0-1,3"},
		{" 2 - 4 ", []int{2, 3, 4}, "2-4"},
	} {
		got, err := ParseCPUList(tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v", tt.in, got, err)
		}
		if s := FormatCPUList(got); s != tt.str {
			t.Errorf("FormatCPUList(%v) = %q, want %q", got, s, tt.str)
		}
	}
	for _, bad := range []string{"", "a", "-1", "3-1", "1,,2", "0-99999"} {
		if got, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want an error", bad, got)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "1,3-5", "", "9-2", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !cmp.Equal(cpus, again) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, cpus, FormatCPUList(cpus), again, err)
		}
	})
}
