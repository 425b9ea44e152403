package vm_test

import (
	"context"
	"errors"
	"fmt"
	. "github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/ui"
)

// TestCheckObserved: a boot-only guest's snapshot is held to the line the
// host passed and the image's release; its files are bounded, plainly
// named, one printable line each, and their state is the host's reading
// of the text, not the guest's claim.
func TestCheckObserved(t *testing.T) {
	line := ObserveCmdline("mitigations=off")
	ok := vmtest.ObservedPayload(line, "6.1.0-57-amd64", map[string]string{"meltdown": "Vulnerable", "spectre_v2": "Vulnerable\x1b]0;x\x07"})
	s, err := CheckObserved(ok, line, "6.1.0-57-amd64")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Vulnerabilities {
		if v.State != mitigation.Vulnerable || strings.ContainsAny(v.Raw, "\x1b\x07") {
			t.Errorf("%s: state %s (the guest claimed mitigated), raw %q", v.Name, v.State, v.Raw)
		}
	}
	if _, err := CheckObserved(vmtest.ObservedPayload("BOOT_IMAGE=x "+line, "6.1.0-57-amd64", nil), line, "6.1.0-57-amd64"); err != nil {
		t.Errorf("a built-in line before the host's: %v", err)
	}
	many := map[string]string{}
	for i := 0; i <= MaxObservedFiles; i++ {
		many[fmt.Sprintf("f%d", i)] = "Not affected"
	}
	for name, tc := range map[string]struct {
		payload []byte
		want    string
	}{
		"cmdline": {vmtest.ObservedPayload(ObserveCmdline(""), "6.1.0-57-amd64", nil), "refused"},
		"release": {vmtest.ObservedPayload(line, "6.12.0", nil), "reports kernel"},
		"many":    {vmtest.ObservedPayload(line, "6.1.0-57-amd64", many), "more than any kernel has"},
		"name":    {vmtest.ObservedPayload(line, "6.1.0-57-amd64", map[string]string{"../../etc": "x"}), "named"},
		"json":    {[]byte("{"), "snapshot"},
		// A line built into the kernel that sets what the proof asks about.
		"prefix":         {vmtest.ObservedPayload("mitigations=off "+line, "6.1.0-57-amd64", nil), "built into the kernel"},
		"prefix-per-bug": {vmtest.ObservedPayload("quiet spectre_v2=off "+line, "6.1.0-57-amd64", nil), "spectre_v2=off"},
		"huge":           {vmtest.ObservedPayload(line, "6.1.0-57-amd64", map[string]string{"meltdown": strings.Repeat("x", 600<<10)}), "more than a snapshot holds"},
	} {
		_, err := CheckObserved(tc.payload, line, "6.1.0-57-amd64")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, tc.want)
		}
	}
}

// FuzzCheckObserved: whatever a guest sends, CheckObserved never panics
// and what it accepts is bounded and single-line.
func FuzzCheckObserved(f *testing.F) {
	line := ObserveCmdline("")
	f.Add(vmtest.ObservedPayload(line, "r", map[string]string{"meltdown": "Mitigation: PTI"}))
	f.Add([]byte(`{"vulnerabilities":[{"name":"a","raw":"\n\n"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := CheckObserved(data, line, "")
		if err != nil {
			return
		}
		if len(s.Vulnerabilities) > MaxObservedFiles {
			t.Fatalf("%d files", len(s.Vulnerabilities))
		}
		for _, v := range s.Vulnerabilities {
			if strings.Contains(v.Raw, "\n") || len(v.Raw) > 4*MaxObservedText {
				t.Fatalf("raw %q", v.Raw)
			}
		}
	})
}

// TestObserveFallsBackToTCG: --accel auto on a host whose /dev/kvm opens
// but cannot run the guest falls back to tcg, as lab does, saying why,
// and boots under tcg with the model TCGCPU gives instead of -cpu host;
// the observation says what it ran under. --accel kvm does not fall back.
func TestObserveFallsBackToTCG(t *testing.T) {
	exe, k := vmtest.SnapshotBoot(t, "kvm-fails")
	*KVMDevice = os.DevNull
	t.Cleanup(func() { *KVMDevice = "/dev/kvm" })
	said := &ui.Recorder{}
	req := ObserveRequest{Kernel: k, Cmdlines: []string{"", "mitigations=off"}, Accel: AccelAuto, CPU: "host", QEMU: exe, Exe: exe,
		TCGCPU: func() string { return "Cascadelake-Server" }, Handshake: time.Minute, Timeout: 2 * time.Minute, Parallel: 1,
		Out: said}
	got, err := Observe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if o.Accel != AccelTCG || o.CPU != "Cascadelake-Server" || o.Snapshot == nil {
			t.Errorf("%q: under %s, CPU %s", o.Cmdline, o.Accel, o.CPU)
		}
	}
	if all := strings.Join(said.Notes(), "\n"); !strings.Contains(all, "KVM internal error") || !strings.Contains(all, "falling back to --accel tcg") || !strings.Contains(all, "Cascadelake-Server") {
		t.Errorf("said %q", said.Notes())
	}
	req.Accel = AccelKVM
	if _, err := Observe(context.Background(), req); !errors.Is(err, ErrAccel) {
		t.Errorf("--accel kvm fell back: %v", err)
	}
}
