package lab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
)

// TestBootForgedResult: a guest that claims a verified "off" boot it did
// not have (its files say "Mitigation:", its own verification says ok) is
// refused on the host.
func TestBootForgedResult(t *testing.T) {
	forged := guestPayload(t, func(s string) string {
		return strings.Replace(s, `"raw": "Vulnerable; STIBP: disabled; PBRSB-eIBRS: Not affected; BHI: Vulnerable"`, `"raw": "Mitigation: Retpolines; STIBP: disabled"`, 1)
	})
	p := filepath.Join(t.TempDir(), "result")
	os.WriteFile(p, forged, 0o644)
	t.Setenv(vmtest.ResultEnv, p)
	res, _, err := vmtest.Boot(t, "forge", vm.BootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := MeasureInput{RunID: "20261130T234411-bdb94d", Label: "lab-6.1.0-57-amd64-off", Config: bootconfig.Off, Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off},
		Cmdline: "console=ttyS0 panic=-1 mitigations=off", Release: "6.1.0-57-amd64"}
	if _, err := ImportRun(res.Result, in, &run.Lab{}); !errors.Is(err, vm.ErrNotVerified) || !strings.Contains(err.Error(), "spectre_v2") {
		t.Errorf("forged result: %v", err)
	}
}

// TestProbeChecksSnapshot: lab --plan's probe boot is held to what a
// proof's boot is (vm.CheckObserved): another release, another command line,
// more files than any kernel has and escaped names are refused in one line
// before anything is planned from them, and a snapshot over the channel's
// bound is stopped as it is written (memory bounded).
func TestProbeChecksSnapshot(t *testing.T) {
	exe, k := vmtest.SnapshotBoot(t, "snapshot")
	for lie, want := range map[string]string{"release": "6.99.0-evil", "cmdline": "built into the kernel", "many": "more than any kernel has",
		"name": "named", "huge": "more than a lab boot may"} {
		t.Setenv(vmtest.LieEnv, lie)
		s := &session{req: &Request{Plan: "vectors", QEMU: exe, SMP: 1, Accel: vm.AccelTCG}, host: Host{Exe: exe, Out: ui.Discard{}},
			kernels: []vm.Kernel{{Name: "6.1", Image: k}}, accel: vm.AccelTCG, mem: 512}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, err := s.probe(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "probe boot of --plan") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", lie, err, want)
		}
	}
}
