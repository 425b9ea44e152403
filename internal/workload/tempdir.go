package workload

import "github.com/sectax/sectax/internal/tempdir"

// Temporary folders of workloads (go-build's GOCACHE and GOTMPDIR) carry
// an owner marker (internal/tempdir), so that a later run removes those of
// a sectax killed before it could.

// makeOwnedTemp creates a go-build temporary folder with its owner marker.
func makeOwnedTemp() (string, error) { return tempdir.Make("go-build-") }

// StaleTemp is a temporary folder left by a sectax that is gone.
type StaleTemp = tempdir.Stale

// RemoveStaleTemps removes sectax's temporary folders (go-build's, a lab
// boot's) whose owner is no longer running, and returns them.
func RemoveStaleTemps() []StaleTemp { return tempdir.RemoveStale() }
