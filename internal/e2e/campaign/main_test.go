package campaigne2e

import (
	"context"
	"os"
	"testing"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/workload"
)

// TestMain lets the test binary be sectax (cli.Main) where it is the /init
// of a guest or a worker child it re-executes; see internal/e2e.
func TestMain(m *testing.M) {
	if vm.IsGuest() || (len(os.Args) > 1 && os.Args[1] == workload.WorkerCommand) {
		os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
