package campaign

import (
	"context"
	"strings"
	"testing"
)

// TestKexecCheckNamesTheWayOut: an image kexec cannot read names the fix
// that can work here: --via manual on a machine that boots what it is
// told, the lab on a guest whose host sets its command line; "run as
// root" only to someone who is not, and only for a permission error.
func TestKexecCheckNamesTheWayOut(t *testing.T) {
	for _, tc := range []struct {
		k         Kexec
		want, not string
	}{
		{Kexec{Kernel: "/nonexistent/vmlinuz"}, "(no such file or directory); give --kernel/--initrd, or use --via manual", "run as root"},
		{Kexec{Kernel: "/nonexistent/vmlinuz", HostSet: "the KVM host"}, "give --kernel/--initrd; this guest's kernel command line is set by the KVM host, so without kexec " + LabInstead, "--via manual"},
		{Kexec{HostSet: "the KVM host"}, "no kernel image to kexec: give --kernel /boot/vmlinuz-VERSION; this guest's", "--via manual"},
	} {
		err := tc.k.Check(context.Background(), BootRequest{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
			t.Errorf("%+v: %v\nwant %q, not %q", tc.k, err, tc.want, tc.not)
		}
	}
}
