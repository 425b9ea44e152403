package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

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
		if err := EnvText(&b, collect(t, testutil.SysinfoRoot(e.Name()))); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, golden, b.Bytes())
		n++
	}
	if n < 8 {
		t.Errorf("only %d machines rendered", n)
	}
}

func adviceInputs(t *testing.T, root, target string) (*sysinfo.Snapshot, advise.Platform, mitigation.Target, *mitigation.Knowledge) {
	t.Helper()
	dir := testutil.AdviseRoot(t, root)
	s := collect(t, dir)
	tg, err := mitigation.ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	return s, advise.Probe(dir, s), tg, kb
}

// TestAdviceTextGolden: one golden per platform shape.
func TestAdviceTextGolden(t *testing.T) {
	for _, c := range testutil.AdviceCases {
		a := advise.For(adviceInputs(t, c.Root, c.Target))
		var b bytes.Buffer
		if err := AdviceText(&b, &a); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", "advise", c.Name+".text"), b.Bytes())
	}
}

// TestVerificationTextGolden: met and unmet expectations on the fake roots.
func TestVerificationTextGolden(t *testing.T) {
	for _, c := range []struct{ name, root, expect string }{
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
		v := advise.Verify(adviceInputs(t, c.root, c.expect))
		var b bytes.Buffer
		if err := VerificationText(&b, &v); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", "verify", c.name+".text"), b.Bytes())
	}
}
