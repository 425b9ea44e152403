package lab

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"github.com/sectax/sectax/internal/vm"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
)

// guestPayload is a real guest's run document (testdata/guest-run.json, a
// TCG boot of Debian's 6.1 kernel with mitigations=off) as the measure
// task sends it.
func guestPayload(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/guest-run.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if edit != nil {
		doc = edit(doc)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(doc))
	zw.Close()
	return b.Bytes()
}

func TestImportRun(t *testing.T) {
	in := MeasureInput{RunID: "20261130T234411-bdb94d", Label: "lab-6.1.0-57-amd64-off", Config: bootconfig.Off, Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off},
		Cmdline: "console=ttyS0 panic=-1 mitigations=off", Release: "6.1.0-57-amd64"}
	labBlock := &run.Lab{QEMUVersion: "QEMU emulator version 7.2.22", Accel: vm.AccelTCG, CPUModel: vm.TCGCPU, MemoryMiB: 512, VCPUs: 1,
		HostKernel: "6.18.44", HostCPU: "Intel(R) Xeon(R) Processor", Kernel: "6.1.0-57-amd64",
		KernelImage: "/boot/vmlinuz-6.1.0-57-amd64", KernelSHA256: strings.Repeat("ab", 32), LabParams: vm.LabParams, Boot: 1, Boots: 4, PlanSeed: 7}
	doc, err := ImportRun(guestPayload(t, nil), in, labBlock)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := storetest.Ref(t, filepath.Join(t.TempDir(), "s.db")).Open(ctx, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(ctx, []run.Doc{doc}); err != nil {
		t.Fatal(err)
	}
	r, err := db.Get(ctx, in.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lab == nil || *r.Lab != *labBlock {
		t.Errorf("stored lab block %+v", r.Lab)
	}
	if r.Config == nil || r.Config.Name != "off" || !r.Config.Verification.OK || r.Config.Verification.Cmdline != "console=ttyS0 panic=-1 mitigations=off" {
		t.Errorf("stored config block %+v", r.Config)
	}
	env, err := db.Env(ctx, in.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := env["kernel"].(map[string]any); k["release"] != "6.1.0-57-amd64" {
		t.Errorf("the guest's env was not kept: kernel %v", env["kernel"])
	}

	if v := r.Config.Verification; len(v.ExpectedOff) == 0 || v.BootID != "a5976c35-c671-40e2-92d7-91b39271aa2c" {
		t.Errorf("the stored verification is not the host's: %+v", v)
	}

	builtin := guestPayload(t, func(s string) string {
		s = strings.Replace(s, `"raw": "console=ttyS0 panic=-1 mitigations=off"`, `"raw": "earlyprintk=ttyS0 console=ttyS0 panic=-1 mitigations=off"`, 1)
		return strings.Replace(s, `"cmdline": "console=ttyS0 panic=-1 mitigations=off",
      "expected_off"`, `"cmdline": "earlyprintk=ttyS0 console=ttyS0 panic=-1 mitigations=off",
      "expected_off"`, 1)
	})
	if _, err := ImportRun(builtin, in, labBlock); err != nil {
		t.Errorf("a kernel's built-in command line before the host's: %v", err)
	}

	with := func(edit func(*MeasureInput)) MeasureInput { c := in; edit(&c); return c }
	for name, tc := range map[string]struct {
		edit func(string) string
		in   MeasureInput
	}{
		"another label":       {nil, with(func(m *MeasureInput) { m.Label = "lab-x-off" })},
		"another config":      {nil, with(func(m *MeasureInput) { m.Config = bootconfig.On })},
		"unverified":          {func(s string) string { return strings.Replace(s, `"ok": true`, `"ok": false`, 1) }, in},
		"not a run":           {func(string) string { return `{"schema":"other"}` }, in},
		"no cmdline recorded": {nil, with(func(m *MeasureInput) { m.Cmdline = "" })},
		// The guest claims what the host did not do (on main all of these
		// were stored: verification.ok was taken on trust).
		"another cmdline": {nil, with(func(m *MeasureInput) { m.Cmdline = "console=ttyS0 panic=-1 pti=off" })},
		"another kernel":  {nil, with(func(m *MeasureInput) { m.Release = "6.12.0-1-amd64" })},
		"boot seen":       {nil, with(func(m *MeasureInput) { m.SeenBootIDs = []string{"a5976c35-c671-40e2-92d7-91b39271aa2c"} })},
		"forged state": {func(s string) string {
			return strings.Replace(s, `"raw": "Vulnerable; STIBP: disabled; PBRSB-eIBRS: Not affected; BHI: Vulnerable"`, `"raw": "Mitigation: Retpolines; STIBP: disabled"`, 1)
		}, in},
		"forged verification cmdline": {func(s string) string {
			return strings.Replace(s, `"cmdline": "console=ttyS0 panic=-1 mitigations=off",
      "expected_off"`, `"cmdline": "mitigations=off",
      "expected_off"`, 1)
		}, in},
	} {
		_, err := ImportRun(guestPayload(t, tc.edit), tc.in, labBlock)
		if err == nil {
			t.Errorf("%s: imported", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v: more than one line", name, err)
		}
		if (name == "forged state" || name == "boot seen") && !errors.Is(err, vm.ErrNotVerified) {
			t.Errorf("%s: %v, want ErrNotVerified", name, err)
		}
	}
	if _, err := ImportRun([]byte("not gzip"), in, labBlock); err == nil {
		t.Error("a payload that is not gzip was imported")
	}
}

// TestImportRunGzipBomb: a result frame of about 1 MB whose gzip members
// expand to 1 GiB is refused once it passes the frame cap, in one line,
// without the host expanding it whole (before, 256 MiB were read and
// copied before the document was refused).
func TestImportRunGzipBomb(t *testing.T) {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		zw.Write(zeros)
	}
	zw.Close()
	// 16 members of 64 MiB each: gzip.Reader reads them as one stream.
	bomb := bytes.Repeat(member.Bytes(), 16)
	frames, _, bad := vm.DecodeFrames(vm.EncodeFrame(vm.KindResult, bomb))
	if len(frames) != 1 || len(bad) != 0 {
		t.Fatalf("the bomb is not one intact frame: %d frames, %v", len(frames), bad)
	}
	if len(bomb) > 2<<20 {
		t.Fatalf("the bomb frame is %d bytes, want about 1 MB", len(bomb))
	}
	in := MeasureInput{RunID: "r", Label: "l", Config: bootconfig.Off, Cmdline: "console=ttyS0 panic=-1 mitigations=off"}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ImportRun(frames[0].Payload, in, &run.Lab{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "expands to more than 64 MiB") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("ImportRun(bomb) = %v, want one line refusing what expands past the cap", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*vm.MaxFrame {
		t.Errorf("refusing the bomb allocated %d MiB, want at most %d MiB", alloc>>20, 3*vm.MaxFrame>>20)
	}
}
