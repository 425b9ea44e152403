package advise

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

// TestOtherSide: after a run, what the other side needs on WSL, natively,
// and in a guest whose command line the host sets (a Firecracker microVM).
func TestOtherSide(t *testing.T) {
	for _, tc := range []struct {
		root, want string
	}{
		{testutil.SysinfoRoot("firecracker-dev"), "set by the KVM host (no boot loader configuration here): no on/off answer is possible from inside"},
		{testutil.SysinfoRoot("wsl2-intel-on"), "needs .wslconfig's kernelCommandLine changed and wsl --shutdown: sectax advise --target off"},
		{testutil.SysinfoRoot("wsl2-intel-off"), "the other side (the default mitigations) needs .wslconfig's kernelCommandLine changed"},
		{testutil.AdviseRoot(t, "debian-grub"), "needs a reboot: sectax advise --target off shows the steps for GRUB"},
	} {
		s, err := sysinfo.Collect(tc.root)
		if err != nil {
			t.Fatal(err)
		}
		got := OtherSide(s, Probe(tc.root, s))
		if !strings.Contains(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("%s: %q, want one line containing %q", tc.root, got, tc.want)
		}
	}
	if OtherSide(nil, Platform{}) != "" {
		t.Error("a hint without a snapshot")
	}
}
