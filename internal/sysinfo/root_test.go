package sysinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectHostileRoot: a fake tree whose files are symbolic links out
// of it (absolute, and up with ../..) never gets the outside files' text
// into the snapshot: each is recorded as unreadable. A link that stays
// inside the tree is followed.
func TestCollectHostileRoot(t *testing.T) {
	root := copyFixture(t, "wsl2-intel-on")
	secretDir := t.TempDir()
	const secret = "SECRET-d41d8cd98f00b204"
	secretFile := filepath.Join(secretDir, "shadow")
	os.WriteFile(secretFile, []byte(secret+" root:x:0:0\n"), 0o600)
	// A clocksource directory to glob and a DMI dir, both outside.
	os.MkdirAll(filepath.Join(secretDir, "cs"), 0o755)
	os.WriteFile(filepath.Join(secretDir, "cs", "current_clocksource"), []byte(secret), 0o644)
	os.WriteFile(filepath.Join(secretDir, "cs", "available_clocksource"), []byte(secret), 0o644)

	rel, err := filepath.Rel(filepath.Join(root, "proc"), secretFile)
	if err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) {
		t.Helper()
		p := filepath.Join(root, name)
		os.RemoveAll(p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link("proc/cmdline", secretFile)                                        // absolute
	link("proc/version", rel)                                               // ../../… up and out
	link("proc/sys/kernel/osrelease", secretFile)                           // read by procfs
	link("proc/meminfo", "../../../../../../../../../../../../"+secretFile) // ../ past /
	link("sys/devices/system/cpu/vulnerabilities/meltdown", secretFile)
	link("sys/devices/system/clocksource/clocksource1", filepath.Join(secretDir, "cs"))
	link("etc/os-release", "../proc/../../"+filepath.Base(root)+"/../"+rel)
	// Inside the tree: followed.
	os.Rename(filepath.Join(root, "proc/uptime"), filepath.Join(root, "proc/uptime.real"))
	link("proc/uptime", "uptime.real")

	s, err := Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), secret) {
		t.Fatalf("the snapshot holds text from outside the root:\n%s", b)
	}
	unreadable := map[string]string{}
	for _, u := range s.Unreadable {
		unreadable[u.Path] = u.Error
	}
	for _, p := range []string{"/proc/cmdline", "/proc/version", "/proc/sys/kernel/osrelease", "/proc/meminfo",
		"/sys/devices/system/cpu/vulnerabilities/meltdown"} {
		if !strings.Contains(unreadable[p], "escapes") {
			t.Errorf("%s: recorded as %q, want an escape error (unreadable: %v)", p, unreadable[p], s.Unreadable)
		}
	}
	if s.Kernel.UptimeSeconds == nil {
		t.Error("a link inside the root was not followed (uptime missing)")
	}
	// clocksource0 is inside the tree and read; clocksource1, a link out
	// of it, is not looked at (the secret check above would catch it).
	if s.Kernel.Clocksource != "hyperv_clocksource_tsc_page" {
		t.Errorf("clocksource %q, want clocksource0's", s.Kernel.Clocksource)
	}
}
