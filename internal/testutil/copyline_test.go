package testutil

import "testing"

// TestCopyLine: the lines that stay whole however wide the terminal are
// command lines and paths to copy; prose, and prose that starts with a
// path or quotes a parameter, is not one of them.
func TestCopyLine(t *testing.T) {
	for l, want := range map[string]bool{
		"  sectax advise --target off":                               true,
		"$ sudo sectax campaign start":                               true,
		"    mitigations=off spectre_v2=off":                         true,
		"  initrd=\\initrd.img WSL_ROOT_INIT=1 panic=-1":             true,
		"  /usr/local/bin/sectax --db /x/sectax.db campaign resume":  true,
		"    /tmp/d/qemu-system-x86_64 -nodefaults -accel tcg":       true,
		"    /boot/vmlinuz-6.1.0-57-amd64":                           true,
		"    (/etc/systemd/system/sectax-campaign-ID.service)":       true,
		"  /tmp/x is not a kernel image: pass another --kernel":      false,
		"    /tmp/x /tmp/y":                                          false,
		"note: mitigations=off turns every mitigation off":           false,
		"  ssbd=force: runner-thread 1 task: thread force mitigated": false,
		"the tax across the fleet":                                   false,
	} {
		if got := CopyLine(l); got != want {
			t.Errorf("CopyLine(%q) = %v, want %v", l, got, want)
		}
	}
}
