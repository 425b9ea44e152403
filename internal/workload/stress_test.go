package workload

import (
	"context"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
)

type infoOnly Info

func (w infoOnly) Info() Info { return Info(w) }
func (infoOnly) Run(context.Context, Env, Params) (Sample, error) {
	return Sample{}, nil
}

// TestStressesRequired: a workload must say what it stresses; the registry
// refuses one that does not.
func TestStressesRequired(t *testing.T) {
	good := Info{ID: "x", Title: "x", Stresses: Stress{Paths: []string{mitigation.TagEntryExit}, Note: "syscalls"}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]Info{
		"no stresses":  {ID: "x", Title: "x"},
		"no paths":     {ID: "x", Title: "x", Stresses: Stress{Note: "syscalls"}},
		"no note":      {ID: "x", Title: "x", Stresses: Stress{Paths: []string{mitigation.TagEntryExit}}},
		"unknown tag":  {ID: "x", Title: "x", Stresses: Stress{Paths: []string{"disk"}, Note: "disk"}},
		"control+path": {ID: "x", Title: "x", Stresses: Stress{Paths: []string{mitigation.TagEntryExit}, Control: true, Note: "n"}},
	} {
		if err := in.Validate(); err == nil {
			t.Errorf("%s: validated", name)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "workload x") {
					t.Errorf("%s: NewRegistry did not refuse it (%v)", name, r)
				}
			}()
			NewRegistry(infoOnly(in))
		}()
	}
}

// TestEveryWorkloadStresses: every built-in workload names its kernel
// paths (controls, by the ctl- prefix compare uses, none), and MainPaths
// is what the report reads: each one's first path; file-churn is among
// them.
func TestEveryWorkloadStresses(t *testing.T) {
	for _, w := range Default().All() {
		in := w.Info()
		if err := in.Validate(); err != nil {
			t.Error(err)
		}
		if in.Stresses.Control != strings.HasPrefix(in.ID, "ctl-") {
			t.Errorf("%s: Control=%v disagrees with the ctl- prefix", in.ID, in.Stresses.Control)
		}
	}
	want := map[string]string{
		"syscall-basic": mitigation.TagEntryExit, "sched-pipe": mitigation.TagContextSwitch,
		"sched-messaging": mitigation.TagContextSwitch, "go-build": mitigation.TagProcessLifecycle,
		"spawn": mitigation.TagProcessLifecycle, "file-churn": mitigation.TagEntryExit,
	}
	got := MainPaths()
	for _, w := range Default().All() {
		in := w.Info()
		if main, ok := got[in.ID]; ok != (len(in.Stresses.Paths) > 0) || ok && main != in.Stresses.Paths[0] {
			t.Errorf("%s: MainPaths has %q, its paths are %v", in.ID, main, in.Stresses.Paths)
		}
	}
	for id, tag := range want {
		if got[id] != tag {
			t.Errorf("%s: main path %q, want %q", id, got[id], tag)
		}
	}
}
