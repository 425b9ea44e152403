package vm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sectax/sectax/internal/sysinfo"
)

// SnapshotTask is the guest task of the probe boot of `sectax lab
// --plan`: report the guest kernel's environment snapshot, measure nothing.
const SnapshotTask = "snapshot"

// RegisterSnapshot registers SnapshotTask for the sectax of version that
// is the guest's /init.
func RegisterSnapshot(version string) {
	RegisterTask(SnapshotTask, func(ctx context.Context, g *Guest) ([]byte, error) { return guestSnapshot(ctx, g, version) })
}

// GuestEnv is the guest's environment snapshot (the guest is the machine:
// root /), stamped with the version of the sectax that took it.
func GuestEnv(ctx context.Context, version string) (*sysinfo.Snapshot, error) {
	return sysinfo.CollectAs(ctx, "/", version)
}

// guestSnapshot returns the guest's environment snapshot as JSON: the
// plan of an attribution is made from the guest kernel's own vulnerability
// files, not the host's.
func guestSnapshot(ctx context.Context, guest *Guest, version string) ([]byte, error) {
	env, err := GuestEnv(ctx, version)
	if err != nil {
		return nil, err
	}
	guest.Logf("snapshot of kernel %s, command line %q", env.Kernel.Release, strings.TrimSpace(env.Cmdline.Raw))
	return json.Marshal(env)
}
