// Package layers is the architecture of sectax as data: the tiers its
// packages sit in, from the facts at the bottom to the command line at the
// top. A package imports only packages of its own tier or below; its test
// checks the real import graph (go list) against it, and keeps the graph in
// docs/architecture.md current.
package layers

// Tiers lists sectax's packages (relative to the module) from the lowest
// tier to the highest.
var Tiers = []Tier{
	{"facts", "what the machine and the kernel say, and the vocabulary of failures", []string{
		"internal/exit", "internal/child", "internal/userfile", "internal/stats", "internal/mitigation", "internal/wslconfig", "internal/sysinfo",
	}},
	{"models", "what a run, a configuration, a workload and advice are", []string{
		"internal/run", "internal/advise", "internal/config", "internal/workload", "internal/baseline",
	}},
	{"engines", "measuring, storing and comparing runs", []string{
		"internal/perfbench", "internal/runner", "internal/plan", "internal/store", "internal/compare", "internal/sides",
	}},
	{"studies", "what is built from many runs", []string{
		"internal/attribute", "internal/campaign", "internal/lab", "internal/fleet", "internal/export/prom",
	}},
	{"presentation", "laying out every model in every format", []string{
		"internal/report",
	}},
	{"interface", "flags, calling a package, printing, exit codes", []string{
		"internal/cli", "cmd/sectax",
	}},
}

// Tier is one level of the architecture.
type Tier struct {
	Name, What string
	Packages   []string
}

// Forbidden are imports that the tiers would allow but the design does
// not: a renderer never reaches the store (it gets the model), and a
// comparison never knows where its runs came from.
var Forbidden = [][2]string{
	{"internal/report", "internal/store"},
	{"internal/compare", "internal/store"},
	{"internal/report", "internal/runner"},
}

// TestOnly are packages that only tests import; they sit outside the tiers.
var TestOnly = []string{"internal/testutil", "internal/proctest", "internal/store/pgtest", "internal/fleet/fleettest", "internal/layers", "docs"}
