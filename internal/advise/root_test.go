package advise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/sysinfo"
)

// TestProbeHostileRoot: files of a fake root that are symbolic links out of
// it (absolute, and up with ../..) are not read: they count as absent.
func TestProbeHostileRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	secretGrub := filepath.Join(outside, "grub")
	os.WriteFile(secretGrub, []byte("GRUB_CMDLINE_LINUX_DEFAULT=\"SECRET\"\n"), 0o644)
	secretOS := filepath.Join(outside, "os-release")
	os.WriteFile(secretOS, []byte("ID=secretos\nPRETTY_NAME=\"SECRET OS\"\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "etc", "default", "grub.d"), 0o755)
	os.Symlink(secretGrub, filepath.Join(dir, "etc", "default", "grub"))
	os.Symlink(secretGrub, filepath.Join(dir, "etc", "default", "grub.d", "x.cfg"))
	rel, _ := filepath.Rel(filepath.Join(dir, "etc"), secretOS)
	os.Symlink(rel, filepath.Join(dir, "etc", "os-release"))
	p := Probe(dir, nil)
	if p.Kind == PlatformGRUB || strings.Contains(p.Configured, "SECRET") || p.OSID == "secretos" || len(p.DropIns) > 0 {
		t.Fatalf("a link out of the root was followed: %+v", p)
	}
	// The same files inside the root are read.
	os.Remove(filepath.Join(dir, "etc", "default", "grub"))
	os.WriteFile(filepath.Join(dir, "etc", "default", "grub.real"), []byte("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"), 0o644)
	os.Symlink("grub.real", filepath.Join(dir, "etc", "default", "grub"))
	if p := Probe(dir, nil); p.Kind != PlatformGRUB || p.Configured != "quiet" {
		t.Fatalf("a link inside the root was not followed: %+v", p)
	}
}

// TestVerifyUnreadableVulnerabilities: a vulnerabilities directory that
// exists but cannot be read fails the sysfs check with the error, instead
// of passing it as "no files: nothing to compare".
func TestVerifyUnreadableVulnerabilities(t *testing.T) {
	s, p, kb := load(t, "sys:wsl2-intel-off")
	s.Vulnerabilities = nil
	s.Unreadable = append(s.Unreadable, sysinfo.FileError{Path: sysinfo.VulnerabilitiesDir, Error: "permission denied"})
	v := Verify(s, p, mustTarget(t, "off"), kb)
	var found bool
	for _, c := range v.Checks {
		if c.Name == "sysfs" {
			found = true
			if c.OK || !strings.Contains(c.Detail, "cannot be read (permission denied)") {
				t.Errorf("sysfs check %+v", c)
			}
		}
	}
	if !found || v.Holds {
		t.Errorf("checks %+v, holds %v", v.Checks, v.Holds)
	}
	a := For(s, p, mustTarget(t, "off"), kb)
	if !strings.Contains(strings.Join(a.Warnings, "\n"), "cannot be read (permission denied)") {
		t.Errorf("plan warnings %q", a.Warnings)
	}
}
