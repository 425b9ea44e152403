package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/vm"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/adaptive"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
)

// TestOnlyConfigs: --only-config keeps on (the baseline) and the named
// configurations of the plan, in the plan's order of on first, and names
// the plan's configurations when a name is not among them.
func TestOnlyConfigs(t *testing.T) {
	plan, err := bootconfig.ParseAll([]string{"on", "off", "no-spectre_v2=spectre_v2=off", "no-retbleed=retbleed=off"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := OnlyConfigs(plan, []string{"no-retbleed", "on", "no-retbleed"})
	if err != nil || len(got) != 2 || got[0].Name != "on" || got[1].Name != "no-retbleed" {
		t.Errorf("got %v, %v", got, err)
	}
	if all, _ := OnlyConfigs(plan, nil); len(all) != 4 {
		t.Errorf("no --only-config: %d configurations", len(all))
	}
	_, err = OnlyConfigs(plan, []string{"no-mds"})
	if exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "it has on, off, no-spectre_v2, no-retbleed") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestLabAdaptRound: adaptive repetition compares each configuration with
// on from the stored runs, stops it when its interval (the boot as the
// unit) is within the target, and otherwise plans a round of on and it.
func TestLabAdaptRound(t *testing.T) {
	ctx := context.Background()
	db, err := storetest.Ref(t, filepath.Join(t.TempDir(), "s.db")).Open(ctx, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// on: 6 boots at 10 µs/op; tight: 6 boots at 5 µs/op ± 0.2%; wide:
	// 6 boots between 3 and 8 µs/op.
	spread := map[string][]float64{
		"on":    {10, 10.01, 9.99, 10.02, 9.98, 10},
		"tight": {5, 5.01, 4.99, 5.005, 4.995, 5},
		"wide":  {3, 8, 4, 7, 5, 6},
	}
	var docs []run.Doc
	for cfg, xs := range spread {
		for i, x := range xs {
			snap, err := sysinfo.Collect("../sysinfo/testdata/wsl2-intel-on")
			if err != nil {
				t.Fatal(err)
			}
			snap.BootID = fmt.Sprintf("%s-%d", cfg, i)
			docs = append(docs, run.Doc{Run: &run.Run{Schema: run.Schema, ID: fmt.Sprintf("20261201T000000-%s%d", cfg, i),
				Label: Label("lab", "k", cfg), Status: run.StatusComplete, Engine: "native", Env: snap,
				Lab: &run.Lab{Accel: "kvm", CPUModel: "host"},
				Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
					Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: []float64{x, x, x}}}}}}})
		}
	}
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	configs, _ := bootconfig.ParseAll([]string{"on", "tight=spectre_v2=off", "wide=pti=off"})
	rec := &ui.Recorder{}
	s := &session{req: &Request{Prefix: "lab", Adaptive: adaptive.Policy{TargetPct: 2, Budget: time.Hour}},
		host: Host{Out: rec}, db: db, configs: configs, seed: 1}
	stopped := map[string]bool{}
	booted := map[string]int{"on": 6, "tight": 6, "wide": 6}
	steps, notes, err := s.adaptRound(ctx, []string{"k"}, stopped, booted, time.Minute, time.Minute, 7)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, st := range steps {
		labels = append(labels, st.Label)
		if st.Round != 7 {
			t.Errorf("step %+v: round %d", st, st.Round)
		}
	}
	sort.Strings(labels)
	// wide's boots vary and its repetitions do not: all its spread is
	// boot-to-boot, and it needs more boots than a round gives: the
	// round boots on and wide MaxRoundBoots times each. No cost is
	// measured (no run of this lab), so the repetitions per boot stay
	// at the least, 2.
	if !slices.Equal(labels, []string{"lab-k-on", "lab-k-on", "lab-k-on", "lab-k-wide", "lab-k-wide", "lab-k-wide"}) {
		t.Errorf("next round %v, want on and wide, 3 boots each", labels)
	}
	// The count reaches the guest: its task's input is the selection.
	if in, err := json.Marshal(s.req.Measure); err != nil || !strings.Contains(string(in), `"runs":2`) {
		t.Errorf("the guest's task %s (%v) lacks the repetitions per boot", in, err)
	}
	said := rec.Notes()
	if s.req.Measure.Repetitions != 2 || !slices.ContainsFunc(said, func(l string) bool {
		return strings.HasPrefix(l, "adaptive: boot-to-boot spread is 100% of syscall-basic's variance") &&
			strings.Contains(l, "next boots with 2 repetitions each")
	}) {
		t.Errorf("repetitions per boot %d; said %q", s.req.Measure.Repetitions, said)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "adaptive: tight against on: interval ±") || !strings.HasSuffix(notes[0], "after 6 boots: stopped by the target (--target-ci 2)") {
		t.Errorf("notes %q", notes)
	}
	// The next decision skips tight; with the budget nearly spent, wide
	// stops there.
	steps, notes, err = s.adaptRound(ctx, []string{"k"}, stopped, booted, 59*time.Minute, time.Minute, 8)
	if err != nil || len(steps) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "wide against on: interval ±") || !strings.Contains(notes[0], "stopped by the budget (--budget 1h0m0s, 59:00 spent)") {
		t.Errorf("steps %v, notes %q, err %v", steps, notes, err)
	}
}

// TestDefaultImagesReleaseStaysInRoot: the running kernel's release is read
// from below the root; one that is not a file name ("../", a slash, a
// control character) never names a path outside the root's /boot, and the
// lab says so in one usage line instead of looking there.
func TestDefaultImagesReleaseStaysInRoot(t *testing.T) {
	root := t.TempDir()
	if k, i := vm.DefaultImages(root, "6.1.0-57-amd64"); k != filepath.Join(root, "boot", "vmlinuz-6.1.0-57-amd64") || i != "" {
		t.Errorf("a plain release: %q %q", k, i)
	}
	for _, release := range []string{"../../../etc/passwd", "a/b", "..", ".", "", "6.1\x1b]52;c;x\a", `a\b`} {
		if k, i := vm.DefaultImages(root, release); k != "" || i != "" {
			t.Errorf("release %q: %q %q, want nothing", release, k, i)
		}
		_, err := vm.Kernels(context.Background(), nil, "", root, release)
		if err == nil || exit.Of(err) != exit.Usage || strings.Contains(err.Error(), "\n") {
			t.Errorf("release %q: Kernels said %v (kind %v), want one usage line", release, err, exit.Of(err))
		}
	}
}

// TestProgressCounts: the guest's count of repetitions on a scripted
// sequence of the runner's events never says more done than the total,
// and says the total is open when there is none; the lab's boot count
// says so under adaptive repetition.
func TestProgressCounts(t *testing.T) {
	// A run of 14 repetitions: the runner emits, for step k, a start
	// (Done k) and a finish (Done k+1).
	var last string
	for k := 0; k < 14; k++ {
		for _, fin := range []bool{false, true} {
			e := measure.Event{Done: k, Total: 14, Finished: fin}
			if fin {
				e.Done = k + 1
				last = e.Progress() + " repetitions"
				var done, total int
				if _, err := fmt.Sscanf(last, "%d/%d repetitions", &done, &total); err != nil || done > total || done != k+1 {
					t.Fatalf("after repetition %d: %q", k+1, last)
				}
			}
		}
	}
	if last != "14/14 repetitions" {
		t.Errorf("last line %q, want 14/14 repetitions", last)
	}
	if got := vm.BootCount(4, 6, false); got != "boot 5 of 6" {
		t.Errorf("fixed: %q", got)
	}
	if got := vm.BootCount(4, 6, true); got != "boot 5 of 6 so far (adaptive: more while the target is not met)" {
		t.Errorf("adaptive: %q", got)
	}
}

// TestRemaining: the estimate said after the first boot is from what it
// took.
func TestRemaining(t *testing.T) {
	if got := Remaining(88*time.Second, 2, false); got != "a boot takes 1:28 here: about 2:56 for the 2 boots left" {
		t.Errorf("%q", got)
	}
	if got := Remaining(time.Minute, 3, true); got != "a boot takes 1:00 here: about 3:00 for the 3 planned boots left (adaptive rounds may add more)" {
		t.Errorf("%q", got)
	}
}
