package labe2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
)

// TestProveBootAndStore: one real proof boot (TCG, the lab's CPU model,
// one vCPU, no workload, started at the kernel's PVH entry) of
// mitigations=off: the guest's files come back
// checked against the line the host passed and are stored; a second
// session answers from the stored proof without booting.
func TestProveBootAndStore(t *testing.T) {
	t.Parallel() // one TCG vCPU each: two boots share the two cores
	k, _ := e2e.Kernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "proofs")
	host := &sysinfo.Snapshot{}
	host.CPU.ModelName = "test host"
	req := proof.Request{Kernel: k.Path, Accel: "tcg", CPU: "Skylake-Client-v1", Exe: e2e.Self(t), Host: host, CacheDir: dir}
	label := func(l string) string { return l }
	s, err := proof.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Observe(ctx, []string{"mitigations=off"}, label); err != nil {
		t.Fatal(err)
	}
	s.Close()
	snap := s.Snapshot("mitigations=off")
	if snap == nil || !strings.HasSuffix(snap.Cmdline.Raw, " mitigations=off") || snap.Kernel.Release != k.Release || len(snap.Vulnerabilities) == 0 {
		t.Fatalf("observation %+v", snap)
	}
	if v, ok := find(snap, "meltdown"); !ok || v.State == mitigation.Mitigated {
		t.Errorf("meltdown under mitigations=off on Skylake: %+v", v)
	}
	if in := s.Input(); in.Booted != 1 || len(in.Stored) != 0 {
		t.Errorf("first session booted %d, stored %d", in.Booted, len(in.Stored))
	}

	said := &ui.Recorder{}
	req.Out = said
	s2, err := proof.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Observe(ctx, []string{"mitigations=off"}, label); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if in := s2.Input(); in.Booted != 0 || !in.Stored["mitigations=off"] || len(said.Notes()) != 0 {
		t.Errorf("second session booted %d (said %q)", in.Booted, said.Notes())
	}
	if got := s2.Snapshot("mitigations=off"); len(got.Vulnerabilities) != len(snap.Vulnerabilities) {
		t.Errorf("stored %d files, booted %d", len(got.Vulnerabilities), len(snap.Vulnerabilities))
	}
	// One stored proof, beside the memoised hashes of QEMU and /init,
	// made by a direct boot: Debian's kernels have a PVH entry.
	entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %d proofs", len(entries))
	}
	var e proof.Entry
	if b, err := os.ReadFile(entries[0]); err != nil || json.Unmarshal(b, &e) != nil || e.Boot != vm.EntryPVH {
		t.Errorf("the stored proof was not booted at the kernel's PVH entry: %+v %v", e.Boot, err)
	}
}

func find(s *sysinfo.Snapshot, name string) (mitigation.Vulnerability, bool) {
	for _, v := range s.Vulnerabilities {
		if v.Name == name {
			return v, true
		}
	}
	return mitigation.Vulnerability{}, false
}
