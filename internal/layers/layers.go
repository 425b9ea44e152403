// Package layers is the architecture of sectax as data: the tiers its
// packages sit in, from the facts at the bottom to the command line at the
// top. A package imports only packages of its own tier or below; its test
// checks the real import graph (go list) against it, and keeps the graph in
// docs/architecture.md current.
package layers

// Tiers lists sectax's packages (relative to the module) from the lowest
// tier to the highest.
var Tiers = []Tier{
	{"facts", "what the kernel and the files below --root say, how a program is started, and the vocabulary of failures", []string{
		"internal/exit", "internal/ui", "internal/child", "internal/userfile", "internal/rootfs", "internal/hostid", "internal/safetext", "internal/tempdir", "internal/stats", "internal/mitigation",
	}},
	{"editors", "the files sectax changes for the user: .wslconfig, found, parsed and rewritten losslessly", []string{
		"internal/wslconfig",
	}},
	{"machine", "what this machine is: the environment snapshot", []string{
		"internal/sysinfo",
	}},
	{"models", "what a run, a configuration, a published dataset and advice are", []string{
		"internal/run", "internal/advise", "internal/bootconfig", "internal/baseline", "internal/proven",
	}},
	{"engines", "measuring (the workloads fork and issue system calls), booting a kernel under QEMU, storing and comparing runs", []string{
		"internal/workload", "internal/perfbench", "internal/measure", "internal/plan", "internal/store", "internal/compare", "internal/sides", "internal/vm",
	}},
	{"studies", "what is built from many runs", []string{
		"internal/attribute", "internal/decide", "internal/adaptive", "internal/campaign", "internal/lab", "internal/proof", "internal/fleet", "internal/export/prom",
	}},
	{"presentation", "laying out every model in every format", []string{
		"internal/report",
	}},
	{"interface", "flags, calling a package, printing, exit codes", []string{
		"internal/cli", "internal/term", "internal/usage", "cmd/sectax",
	}},
	{"release", "building the release files from a commit: the binaries, packages, bill of materials", []string{
		"tools/dist",
	}},
}

// Tier is one level of the architecture.
type Tier struct {
	Name, What string
	Packages   []string
}

// Forbidden are imports that the tiers would allow but the design does
// not: a renderer never reaches the store (it gets the model), a
// comparison never knows where its runs came from, measure records a
// run through its Sink (store.Recorder is one) and never opens a store,
// a configuration's verification asks the prediction of mitigation, not
// advice, and a campaign or a proof boots through vm and repeats through
// adaptive, never through the lab experiment (not even by way of another
// package: Apart).
var Forbidden = [][2]string{
	{"internal/report", "internal/store"},
	{"internal/compare", "internal/store"},
	{"internal/report", "internal/measure"},
	{"internal/measure", "internal/store"},
	{"internal/bootconfig", "internal/advise"},
	{"internal/campaign", "internal/lab"},
	{"internal/proof", "internal/lab"},
}

// Apart are packages that must not depend on another at all, directly or
// through any package between them (go list -deps).
var Apart = [][2]string{
	{"internal/campaign", "internal/lab"},
	{"internal/proof", "internal/lab"},
}

// TestOnly are packages that only tests import; they sit outside the tiers.
var TestOnly = []string{"internal/testutil", "internal/proctest", "internal/store/pgtest", "internal/store/storetest", "internal/store/tampertest", "internal/vm/vmtest", "internal/fleet/fleettest", "internal/layers", "internal/e2e", "internal/e2e/lab", "internal/e2e/campaign", "docs"}

// Owners are standard-library doors that one package owns: only it (and
// the packages of TestOnly) may import the package or call the function.
// Starting a program goes through child (its own process group, the
// parent-death signal); reading below --root through rootfs (os.Root);
// replacing a file through userfile (a new temporary file renamed over
// the target, whose old content is never opened).
var Owners = []Owner{
	{Import: "os/exec", Owner: "internal/child"},
	{Call: "os.OpenRoot(", Owner: "internal/rootfs"},
	{Call: "os.CreateTemp(", Owner: "internal/userfile"},
}

// Owner is one door and the package that owns it (workload, the last
// package that started programs itself, goes through child.Command and
// child.LookPath since issue 22).
type Owner struct {
	// Import is an import path, or Call the text of a call.
	Import, Call string
	Owner        string
	// Except are files (package/file.go) that still call Call, each with a
	// TODO naming its issue; the test fails once one no longer does.
	Except []string
}

// MaxFileLines is the most lines a non-test Go file may hold: a file over
// it does two things and is two files. MaxCLILines is the most the
// command line's package may hold, its help text apart (help/*.txt):
// flags, one call below, printing (docs/architecture.md).
const (
	MaxFileLines = 600
	MaxCLILines  = 3200
)
