package workload

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	info := SchedMessaging{}.Info()
	p, err := Resolve(info, Study, map[string]string{"mode": "thread", "loops": "1_000"})
	if err != nil {
		t.Fatal(err)
	}
	want := Params{"groups": int64(20), "loops": int64(1000), "ipc": "socket", "mode": "thread", "spawn": "fork"}
	if d := cmp.Diff(want, p); d != "" {
		t.Error(d)
	}
	for _, tt := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{"loops": "0"}, "sched-messaging.loops=0 is out of range (accepted: 1..4294967295)"},
		{map[string]string{"loops": "ten"}, `sched-messaging.loops="ten" is not an integer`},
		{map[string]string{"mode": "fiber"}, `sched-messaging.mode="fiber" is not accepted (accepted: process, thread)`},
		{map[string]string{"size": "1"}, `workload sched-messaging has no parameter "size" (accepted: groups, loops, ipc, mode, spawn)`},
	} {
		_, err := Resolve(info, Standard, tt.kv)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%v) = %v, want usage error containing %q", tt.kv, err, tt.want)
		}
	}
}

func TestParseOverrides(t *testing.T) {
	reg := Default()
	got, err := ParseOverrides(reg, []string{"sched-pipe.loops=5", "sched-pipe.mode=thread", "syscall-basic.loops=7"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"sched-pipe": {"loops": "5", "mode": "thread"}, "syscall-basic": {"loops": "7"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	for _, bad := range []string{"loops=5", "sched-pipe.loops", ".loops=1", "nope.loops=1", "sched-pipe.=1"} {
		if _, err := ParseOverrides(reg, []string{bad}); err == nil {
			t.Errorf("ParseOverrides(%q) = nil error", bad)
		}
	}
}

func FuzzParseOverrides(f *testing.F) {
	for _, s := range []string{"sched-pipe.loops=5", "a.b=c", "=", "x", "syscall-basic.loops=1=2"} {
		f.Add(s)
	}
	reg := Default()
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseOverrides(reg, []string{s})
		if err != nil {
			return
		}
		for id, kv := range m {
			w, err := reg.Lookup(id)
			if err != nil {
				t.Fatalf("accepted unknown workload %q", id)
			}
			// Resolving must never panic, whatever the value.
			Resolve(w.Info(), Quick, kv)
		}
	})
}

func TestSelect(t *testing.T) {
	reg := Default()
	ws, err := reg.Select([]string{"sched-pipe", "syscall-basic"}, nil)
	if err != nil || len(ws) != 2 || ws[0].Info().ID != "syscall-basic" {
		t.Errorf("Select = %v, %v (want registry order)", ws, err)
	}
	if _, err := reg.Select(nil, reg.IDs()); err == nil {
		t.Error("selecting nothing should fail")
	}
	if _, err := reg.Select([]string{"bogus"}, nil); err == nil || !strings.Contains(err.Error(), "accepted: syscall-basic") {
		t.Errorf("unknown id: %v", err)
	}
}

// TestNoValueBecomesAFlag: a parameter value that reaches another
// program's command line cannot become a flag of that program
// (go-build.target=-toolexec=PROG ran PROG through the go command).
func TestNoValueBecomesAFlag(t *testing.T) {
	reg := Default()
	for _, c := range []struct{ id, key, val string }{
		{"go-build", "target", "-toolexec=/tmp/prog std"},
		{"go-build", "target", "std -toolexec=/tmp/prog"},
		{"go-build", "target", "std\t-a"},
		{"go-build", "dir", "-C/tmp"},
		{"cmd", "cmd", "-c true"},
		{"cmd", "prepare", " -x"},
	} {
		w, err := reg.Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Resolve(w.Info(), Quick, map[string]string{c.key: c.val})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "'-'") {
			t.Errorf("%s.%s=%q: %v; want a usage error about '-'", c.id, c.key, c.val, err)
		}
	}
	// Flags of the user's own command stay theirs.
	w, _ := reg.Lookup("cmd")
	if _, err := Resolve(w.Info(), Quick, map[string]string{"cmd": "make -j16", "prepare": "make clean -s"}); err != nil {
		t.Fatal(err)
	}
	w, _ = reg.Lookup("go-build")
	if _, err := Resolve(w.Info(), Quick, map[string]string{"target": "std cmd/..."}); err != nil {
		t.Fatal(err)
	}
}
