package perfbench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sectax/sectax/internal/workload"
)

func TestParseCaptured(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		file string
		want workload.PerfOutput
	}{
		{"syscall-basic.txt", workload.PerfOutput{Collection: "syscall", Bench: "basic", Executed: 200000, TotalSec: 0.036, UsecsPerOp: 0.182005, OpsPerSec: 5494354}},
		{"syscall-basic-l0.txt", workload.PerfOutput{Collection: "syscall", Bench: "basic", Executed: 0, TotalSec: 0, UsecsPerOp: nan, OpsPerSec: -2147483648}},
		{"syscall-basic-de_DE.txt", workload.PerfOutput{Collection: "syscall", Bench: "basic", Executed: 1000000, TotalSec: 1.433, UsecsPerOp: 1.433501, OpsPerSec: 697593}},
		{"syscall-basic-en_US.txt", workload.PerfOutput{Collection: "syscall", Bench: "basic", Executed: 2000000, TotalSec: 2.837, UsecsPerOp: 1.418802, OpsPerSec: 704833}},
		{"sched-pipe-process.txt", workload.PerfOutput{Collection: "sched", Bench: "pipe", Executed: 20000, Tasks: "processes", TotalSec: 0.098, UsecsPerOp: 4.9039, OpsPerSec: 203919}},
		{"sched-pipe-thread.txt", workload.PerfOutput{Collection: "sched", Bench: "pipe", Executed: 20000, Tasks: "threads", TotalSec: 0.085, UsecsPerOp: 4.2555, OpsPerSec: 234990}},
		{"sched-messaging-process.txt", workload.PerfOutput{Collection: "sched", Bench: "messaging", Tasks: "processes", Groups: 2, Workers: 80, TotalSec: 0.228, UsecsPerOp: nan, OpsPerSec: nan}},
		{"sched-messaging-thread-pipe.txt", workload.PerfOutput{Collection: "sched", Bench: "messaging", Tasks: "threads", Groups: 2, Workers: 80, TotalSec: 0.075, UsecsPerOp: nan, OpsPerSec: nan}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); d != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, tt := range []struct{ name, in string }{
		{"empty", ""},
		{"simple format", "0.012\n"},
		{"usage", "# Running 'sched/pipe' benchmark:\n  Error: unknown switch `x'\n"},
		{"no total", "# Running 'syscall/basic' benchmark:\n# Executed 10 getppid() calls\n"},
		{"no header", "     Total time: 0.036 [sec]\n"},
		{"bad executed", "# Running 'syscall/basic' benchmark:\n# Executed ,,, getppid() calls\n     Total time: 0.036 [sec]\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if o, err := Parse([]byte(tt.in)); err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.in, o)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(b)
		if err == nil && (o.Collection == "" || !bytes.Contains(b, []byte("Total time: ")) || o.TotalSec < 0) {
			t.Fatalf("accepted output without header or total: %+v", o)
		}
	})
}

func TestParseVersion(t *testing.T) {
	for _, tt := range []struct {
		in           string
		major, minor int
		style        string
	}{
		{"perf version 6.1.187\n", 6, 1, "pingpong"},
		{"perf version 6.14.2", 6, 14, "pingpong"},
		{"perf version 6.15.0", 6, 15, "symmetric"},
		{"perf version 7.0.rc1.g1234", 7, 0, "symmetric"},
	} {
		ma, mi, err := ParseVersion(tt.in)
		if err != nil || ma != tt.major || mi != tt.minor {
			t.Errorf("ParseVersion(%q) = %d, %d, %v", tt.in, ma, mi, err)
		}
		if got := (workload.SchedPipe{}).PerfDefaults((&Engine{Major: ma, Minor: mi}).PerfVersion())["style"]; got != tt.style {
			t.Errorf("%q: sched-pipe style %s, want %s", tt.in, got, tt.style)
		}
	}
	if _, _, err := ParseVersion("command not found"); err == nil {
		t.Error("ParseVersion accepted garbage")
	}
}
