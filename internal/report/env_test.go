package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

// fakeRoot is a fake machine tree of internal/advise (platform shapes) or,
// for a name starting with "sys:", of internal/sysinfo.
func fakeRoot(name string) string {
	if n, ok := strings.CutPrefix(name, "sys:"); ok {
		return filepath.Join("..", "sysinfo", "testdata", n)
	}
	return filepath.Join("..", "advise", "testdata", "roots", name)
}

func collect(t *testing.T, root string) *sysinfo.Snapshot {
	t.Helper()
	s, err := sysinfo.Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEnvTextGolden renders every fake machine of internal/sysinfo.
func TestEnvTextGolden(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "sysinfo", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "fuzz" {
			continue
		}
		golden := filepath.Join("testdata", "env", e.Name()+".txt")
		if _, err := os.Stat(golden); err != nil && !testutil.Updating() {
			continue // a tree of sysinfo's own tests only
		}
		var b bytes.Buffer
		if err := EnvText(&b, collect(t, fakeRoot("sys:"+e.Name()))); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, golden, b.Bytes())
		n++
	}
	if n < 8 {
		t.Errorf("only %d machines rendered", n)
	}
}

// adviceCase is an advise or verify on a fake root.
type adviceCase struct{ name, root, target string }

func adviceInputs(t *testing.T, c adviceCase) (*sysinfo.Snapshot, advise.Platform, advise.Target, *mitigation.Knowledge) {
	t.Helper()
	s := collect(t, fakeRoot(c.root))
	tg, err := advise.ParseTarget(c.target)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	return s, advise.Probe(fakeRoot(c.root), s), tg, kb
}

// TestAdviceTextGolden: one golden per platform shape.
func TestAdviceTextGolden(t *testing.T) {
	for _, c := range []adviceCase{
		{"wsl-off", "sys:wsl2-intel-on", "off"},
		{"wsl-auto", "sys:wsl2-intel-off", "auto"},
		{"debian-grub-off", "debian-grub", "off"},
		{"fedora-grubby-off", "fedora-grubby", "off"},
		{"systemd-boot-auto", "systemd-boot", "auto"},
		{"kernelstub-off", "kernelstub", "off"},
		{"unknown-off", "sys:firecracker-dev", "off"},
		{"wsl-params", "sys:wsl2-intel-on", "spectre_bhi=vmexit audit=0"},
		{"old-kernel-off", "sys:old-4.15-intel", "off"},
	} {
		a := advise.Plan(adviceInputs(t, c))
		var b bytes.Buffer
		if err := AdviceText(&b, &a); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", "advise", c.name+".text"), b.Bytes())
	}
}

// TestVerificationTextGolden: met and unmet expectations on the fake roots.
func TestVerificationTextGolden(t *testing.T) {
	for _, c := range []adviceCase{
		{"on-auto", "sys:wsl2-intel-on", "auto"},
		{"on-off", "sys:wsl2-intel-on", "off"},
		{"off-off", "sys:wsl2-intel-off", "off"},
		{"off-params", "sys:wsl2-intel-off", "mitigations=off audit=0"},
		{"off-auto", "sys:wsl2-intel-off", "auto"},
		{"custom-vectors", "sys:firecracker-dev", "mitigations=auto,no_guest_host,no_guest_guest"},
		{"custom-off", "sys:firecracker-dev", "off"},
		{"asked-off-not-applied", "wsl2-asked-off", "off"},
		{"off-overridden", "wsl2-off-overridden", "off"},
		{"grub-pending", "debian-grub-pending", "off"},
		{"old-kernel-ignored", "old-kernel-ignored", "off"},
	} {
		v := advise.Verify(adviceInputs(t, c))
		var b bytes.Buffer
		if err := VerificationText(&b, &v); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", "verify", c.name+".text"), b.Bytes())
	}
}
