package lab

import (
	"os"
	"testing"

	"github.com/sectax/sectax/internal/vm/vmtest"
)

// The test binary is also the fake QEMU of the probe and import tests.
func TestMain(m *testing.M) {
	vmtest.Main()
	os.Exit(m.Run())
}
