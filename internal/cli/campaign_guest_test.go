package cli

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// TestCampaignOnAGuestItsHostBoots: on a guest whose kernel command line
// its host sets (Firecracker: no boot loader configuration below --root,
// not WSL), no reboot from inside boots another line: --via manual is
// refused naming the lab, the dry run says so, and decide measures its
// savings with the lab, not a campaign.
func TestCampaignOnAGuestItsHostBoots(t *testing.T) {
	root := testutil.SysinfoRoot("firecracker-dev")
	e := newCLIEnv(t)
	code, _, stderr := e.run("--root", root, "campaign", "start", "--via", "manual", "--suite", "quick")
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "set by the KVM host") ||
		!strings.Contains(stderr, "sectax lab --config on --config off=mitigations=off") {
		t.Errorf("--via manual: exit %d, %q", code, stderr)
	}
	code, out, stderr := e.run("--root", root, "campaign", "start", "--dry-run", "--suite", "quick")
	out = unwrapText(out)
	want := "note: this guest's kernel command line is set by the KVM host (no boot loader configuration here): a reboot or a restart by the host comes back with the host's line, so only kexec boots the steps' lines; where kexec cannot, measure both settings in QEMU guests instead: sectax lab"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("dry run: exit %d, %s\n%s\nwant %q", code, stderr, out, want)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "note: start will refuse") && (strings.Contains(l, "--via manual") || !strings.Contains(l, "sectax lab")) {
			t.Errorf("the refusal points at --via manual, or not at the lab: %s", l)
		}
	}
	code, out, _ = e.run("--root", root, "decide", "--protect", "user_kernel")
	if code != 0 || !strings.Contains(out, "measure it with: sectax lab --plan vectors") || strings.Contains(out, "campaign start") {
		t.Errorf("decide on the guest: exit %d\n%s", code, out)
	}
}
