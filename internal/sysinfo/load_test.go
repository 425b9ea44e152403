package sysinfo

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestReadLoad reads the fake busy tree: the load average, the CPU
// counters in seconds and the other sectax processes (not self, not its
// children); the broken tree gives what it can and an error naming the
// files.
func TestReadLoad(t *testing.T) {
	at := time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)
	l, err := ReadLoad("testdata/load/busy", 4242, at)
	if err != nil {
		t.Fatal(err)
	}
	if l.Load1 == nil || *l.Load1 != 110.52 || !l.At.Equal(at) {
		t.Errorf("load %+v", l)
	}
	if l.CPUSeconds == nil || math.Abs(*l.CPUSeconds-9835) > 1e-9 || l.StealSeconds == nil || *l.StealSeconds != 300 {
		t.Errorf("cpu %v steal %v, want 9835 s and 300 s", l.CPUSeconds, l.StealSeconds)
	}
	if l.OtherSectax != 1 {
		t.Errorf("other sectax %d, want 1 (200; 201 is self's child, 4242 self)", l.OtherSectax)
	}
	l, err = ReadLoad("testdata/load/broken", 1, at)
	if err == nil || !strings.Contains(err.Error(), "/proc/loadavg") || !strings.Contains(err.Error(), "stat") {
		t.Errorf("broken tree: %v", err)
	}
	if l.Load1 != nil || l.CPUSeconds != nil || l.OtherSectax != 0 {
		t.Errorf("broken tree read %+v", l)
	}
}

func TestParseCPUTimes(t *testing.T) {
	for _, tt := range []struct {
		in           string
		total, steal float64
		bad          bool
	}{
		{"cpu  1 2 3 4 5 6 7 8 9 10\n", 0.36, 0.08, false},
		{"cpu  100 0 100 800\n", 10, 0, false}, // before steal existed
		{"cpu0 1 2 3 4\n", 0, 0, true},
		{"cpu 1 2\n", 0, 0, true},
		{"cpu 1 -2 3 4\n", 0, 0, true},
		{"", 0, 0, true},
	} {
		total, steal, err := ParseCPUTimes(tt.in)
		if (err != nil) != tt.bad || math.Abs(total-tt.total) > 1e-9 || math.Abs(steal-tt.steal) > 1e-9 {
			t.Errorf("ParseCPUTimes(%q) = %v, %v, %v", tt.in, total, steal, err)
		}
	}
}

// FuzzParseLoadAvg: any text gives a finite non-negative load or an
// error, never a panic.
func FuzzParseLoadAvg(f *testing.F) {
	for _, s := range []string{"0.42 0.30 0.25 1/123 4567\n", "", "   ", "NaN 1 1", "-1 0 0", "1e400", "3.00", "110.52 98.10 80.02 112/900 4567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseLoadAvg(s)
		if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q gave %v", s, v)
		}
	})
}

// FuzzParseCPUTimes: any text gives finite non-negative counters with
// steal within the total, or an error; never a panic.
func FuzzParseCPUTimes(f *testing.F) {
	for _, s := range []string{"cpu  1 2 3 4 5 6 7 8 9 10\n", "cpu 1 2 3 4", "cpu0 1\ncpu 5 5 5 5 5 5 5 5", "cpu 18446744073709551615 1 1 1", "", "cpu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		total, steal, err := ParseCPUTimes(s)
		if err == nil && (total < 0 || steal < 0 || steal > total || math.IsNaN(total) || math.IsInf(total, 0)) {
			t.Fatalf("%q gave total %v steal %v", s, total, steal)
		}
	})
}
