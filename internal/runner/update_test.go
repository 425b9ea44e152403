package runner

import "flag"

// update is accepted so that 'go test ./... -update' works across the
// repository; this package has no golden files.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
