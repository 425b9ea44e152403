package labe2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/workload"
)

// TestMain lets the test binary be sectax (cli.Main) where it is the /init
// of a guest or a worker child it re-executes; see internal/e2e.
func TestMain(m *testing.M) {
	if vm.IsGuest() {
		// The echo task of TestBootEcho, beside the tasks sectax registers.
		vm.RegisterTask("echo", func(ctx context.Context, g *vm.Guest) ([]byte, error) {
			g.Logf("echo task running")
			cmdline, err := os.ReadFile("/proc/cmdline")
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]any{"input": g.Task.Input, "cmdline": strings.TrimSpace(string(cmdline))})
		})
	}
	if vm.IsGuest() || (len(os.Args) > 1 && os.Args[1] == workload.WorkerCommand) {
		os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}
