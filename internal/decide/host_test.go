package decide

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/hostid"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
)

// hostMark is the mark the host below root puts on run id (its key made
// when it has none).
func hostMark(t *testing.T, root, id string) string {
	t.Helper()
	k, err := hostid.Of(root)
	if err != nil {
		t.Fatal(err)
	}
	return k.Mark(id)
}

// TestForgedRunsOfAnotherHost: a store another user may write (a shared
// SQLite file, group-writable) holds this host's three runs and rows that
// another user wrote with this machine's kernel and CPU strings: one of
// another host with its own mark, one that copies this host's mark from
// one of its runs, and one without a mark. decide counts only this host's
// runs: the forged "off" run (ten times faster) gives no saving; the note
// counts each kind of run it left out; --any-machine uses them and says
// how many are not this host's.
func TestForgedRunsOfAnotherHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	ctx := context.Background()
	in := input(t, "host-6.18")
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o777)
	path := filepath.Join(dir, "s.db")
	db, err := storetest.Ref(t, path).Open(ctx, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	doc := func(i int, label string, centre float64, mark string) run.Doc {
		xs := make([]float64, len(jitter))
		for j, f := range jitter {
			xs[j] = centre * f
		}
		started := time.Date(2026, 12, 1, 9, i, 0, 0, time.UTC)
		return run.Doc{Run: &run.Run{Schema: run.Schema, ID: fmt.Sprintf("20261201T09%02d00-00000%d", i, i), Label: label, HostMark: mark,
			Started: started, Finished: started.Add(time.Minute), Status: run.StatusComplete, Suite: "quick", Engine: "native", Repetitions: 8,
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}, RawEnv: envOf(t, in, label)}
	}
	var docs []run.Doc
	for i, label := range []string{"on", "no-guest"} {
		d := doc(i, label, map[string]float64{"on": 12, "no-guest": 11.8}[label], "")
		d.Run.HostMark = hostMark(t, in.Root, d.Run.ID)
		docs = append(docs, d)
	}
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Chmod(path, 0o666)

	// The attacker, another uid, writes three "off" runs ten times faster
	// into the store: an export-shaped document per row, imported with
	// sectax's own store code in a child of this test.
	otherKey := strings.Repeat("ab", 16)
	copied := docs[0].Run.HostMark
	var forged []run.Doc
	for i, mark := range []string{otherKey, copied, ""} {
		forged = append(forged, doc(10+i, "off", 1.2, mark))
	}
	b, err := json.Marshal(forged)
	if err != nil {
		t.Fatal(err)
	}
	in2 := filepath.Join(dir, "forged.json")
	os.WriteFile(in2, b, 0o644)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "decide.test")
	eb, _ := os.ReadFile(self)
	os.WriteFile(exe, eb, 0o755)
	cmd := exec.Command(exe, "-test.run", "^TestForgerChild$")
	cmd.Env = []string{"DECIDE_FORGER=" + path, "DECIDE_FORGED=" + in2, "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "PASS") {
		t.Fatalf("the forger: %v: %s", err, out.String())
	}

	db, err = storetest.Ref(t, path).Open(ctx, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	arms, err := attribute.StoredArms(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(arms, func(a attribute.Arm) bool { return a.Name == "off" }); i < 0 || len(arms[i].Runs) != 3 {
		t.Fatalf("the forged rows are not in the store: %+v", arms)
	}
	in.Arms = arms
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); o.Saving != nil || o.Measure == "" {
		t.Errorf("off from forged runs: %+v", o)
	}
	if o := option(d, "no-guest"); len(o.Saving) != 1 {
		t.Errorf("this host's own runs not used: %+v", o)
	}
	want := "stored runs left out of the savings: 3: 2 by another host"
	if !slices.ContainsFunc(d.Facts.Notes, func(n string) bool {
		return strings.Contains(n, want) && strings.Contains(n, "1 without a host mark") && !strings.Contains(n, "another kernel")
	}) {
		t.Errorf("notes %q: want %q and one unmarked", d.Facts.Notes, want)
	}
	in.AnyMachine = true
	if d, err = Decide(in); err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); len(o.Saving) != 1 {
		t.Errorf("--any-machine: %+v", o)
	}
	if !slices.ContainsFunc(d.Facts.Notes, func(n string) bool { return strings.Contains(n, "3 of them not recognised as this host's") }) {
		t.Errorf("--any-machine notes %q", d.Facts.Notes)
	}
}

// TestForgerChild is the attacker of TestForgedRunsOfAnotherHost.
func TestForgerChild(t *testing.T) {
	path := os.Getenv("DECIDE_FORGER")
	if path == "" {
		t.Skip("run by TestForgedRunsOfAnotherHost")
	}
	b, err := os.ReadFile(os.Getenv("DECIDE_FORGED"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []run.Doc
	if err := json.Unmarshal(b, &docs); err != nil {
		t.Fatal(err)
	}
	db, err := storetest.Ref(t, path).Open(context.Background(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// TestLeftOutCountsRuns: a stored run in two arms (a lab's on run is its
// label's and its configuration's) is one run left out, not two (issue 47:
// "left out: 3" where the store held 2 runs).
func TestLeftOutCountsRuns(t *testing.T) {
	in := input(t, "host-6.18")
	mk := func(id string) *run.Run {
		return &run.Run{Schema: run.Schema, ID: id, Label: "on", Status: run.StatusComplete}
	}
	a, b := mk("20261201T090000-aaaaaa"), mk("20261201T090000-bbbbbb")
	in.Arms = []attribute.Arm{
		{Name: "on", Runs: []*run.Run{a, b}, Envs: []map[string]any{{}, {}}},
		{Name: "keep-all", Runs: []*run.Run{mk(a.ID)}, Envs: []map[string]any{{}}},
	}
	_, notes := machineArms(in)
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "left out of the savings: 2:") {
		t.Errorf("notes %q: want 2 runs left out", notes)
	}
}
