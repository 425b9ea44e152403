package workload

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WorkerCommand {
		if err := WorkerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("SECTAX_TEST_NPROC") != "" {
		os.Exit(nprocChild(os.Getenv("SECTAX_TEST_NPROC")))
	}
	os.Exit(m.Run())
}
