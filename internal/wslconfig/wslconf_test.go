package wslconfig

import "testing"

// TestWSLConf: /etc/wsl.conf read with WSL's parser: names compared
// without case, '#' comments, quotes removed, the first of two settings
// wins; the defaults when a value is absent or not a path.
func TestWSLConf(t *testing.T) {
	conf := []byte("[boot]\nsystemd=true\n[interop]\n  Enabled = false # no Windows\n[automount]\nroot = \"/win\"\nroot = /later/\n")
	if !InteropDisabled(conf) {
		t.Error("interop enabled = false not seen")
	}
	if got := AutomountRoot(conf); got != "/win/" {
		t.Errorf("automount root = %q, want /win/", got)
	}
	for _, c := range []string{"", "[automount]\nroot = win\n", "\x00\x01binary"} {
		if got := AutomountRoot([]byte(c)); got != "/mnt/" {
			t.Errorf("AutomountRoot(%q) = %q, want /mnt/", c, got)
		}
		if InteropDisabled([]byte(c)) {
			t.Errorf("InteropDisabled(%q)", c)
		}
	}
	f, _ := Parse(conf)
	if v, ok := f.Value("BOOT", "SystemD"); !ok || v != "true" {
		t.Errorf("boot.systemd = %q %v", v, ok)
	}
}
