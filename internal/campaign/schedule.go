// Package campaign runs the on/off comparison across real reboots: a plan
// of boots (every configuration N times, in a shuffled order with a
// recorded seed), and a state machine kept in the store that reboots into
// each step's configuration, verifies the boot before any sample
// (bootconfig.Verify), waits for a quiet start, measures (package measure), and
// at the end puts back everything it changed.
//
// A campaign moves like this, every transition one transaction:
//
//	start   → plan stored, resume hook installed, step 1 booting (reboot requested)
//	resume  → booting: verify the boot → verified → quiet start → measuring → measured
//	          → next step booting (reboot requested) … last step: finished, restored
//	          a boot that does not verify: retried once, then failed, restored
//	abort   → aborted, restored
//
// The mechanisms that reboot (kexec, WSL through Windows interop, manual)
// sit behind Mechanism, and what is read from the machine behind Host, so
// that tests drive the state machine against a fake machine.
package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
)

// DefaultBoots is how many boots each configuration gets by default: two,
// so that the boot, not the repetition, is the unit of the comparison.
const DefaultBoots = 2

// MaxAttempts is how many boots a step may take before the campaign stops:
// a boot that does not verify is retried once.
const MaxAttempts = 2

// ErrPlan is wrapped by every error about the plan's options: a usage
// error (--config, --boots).
var ErrPlan = exit.New(exit.Usage, "bad campaign plan")

// Step is one boot of the plan.
type Step struct {
	Config string
	Boot   int
}

// Schedule orders boots boots of every configuration in a random order drawn
// from seed: the order is shuffled so that drift over the campaign (a
// warming room, a background update) does not line up with one
// configuration, and the seed is recorded so that the order can be
// reproduced. Boots of one configuration are numbered in the order they
// run.
func Schedule(configs []bootconfig.Config, boots int, seed int64) ([]Step, error) {
	if len(configs) < 2 {
		return nil, fmt.Errorf("%w: a campaign compares at least two configurations (give --config twice, e.g. --config on --config off)", ErrPlan)
	}
	if boots < 1 || boots > 50 {
		return nil, fmt.Errorf("%w: --boots %d: give 1 to 50 boots per configuration (2 or more make the boot the unit of the comparison)", ErrPlan, boots)
	}
	var steps []Step
	for b := 0; b < boots; b++ {
		for _, c := range configs {
			steps = append(steps, Step{Config: c.Name})
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5ec7a8))
	r.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
	n := map[string]int{}
	for i := range steps {
		n[steps[i].Config]++
		steps[i].Boot = n[steps[i].Config]
	}
	return steps, nil
}

// Options are how every boot of a campaign is measured and rebooted,
// stored with the campaign so that resume, after a reboot, does the same.
type Options struct {
	// Request selects and sizes the workloads as for sectax run (a
	// campaign's: suite, only, params, runs and warmup, under the keys
	// campaigns have always been stored with).
	plan.Request
	// Kernel and Initrd are the images kexec loads (the running
	// kernel's by default; Initrd "" loads none).
	Kernel string `json:"kernel,omitempty"`
	Initrd string `json:"initrd,omitempty"`
	// WSLConfig is the .wslconfig --via wsl edits; Distro the WSL
	// distribution to start again.
	WSLConfig string `json:"wslconfig,omitempty"`
	Distro    string `json:"distro,omitempty"`
	// Exe and DB are the sectax binary and the database resume runs
	// with (absolute paths).
	Exe string `json:"exe,omitempty"`
	DB  string `json:"db,omitempty"`
	// Resume says how the campaign continues after a boot: "unit" (the
	// systemd unit), "interop" (the Windows-side script) or "by hand".
	Resume string `json:"resume,omitempty"`
	// TargetCI and Budget are adaptive repetition: when the planned boots
	// are measured, Engine.Extend may add rounds until each
	// configuration's interval against the first is within ±TargetCI
	// percentage points, or the campaign has run Budget (0: none).
	TargetCI float64       `json:"target_ci,omitempty"`
	Budget   time.Duration `json:"budget_ns,omitempty"`
	// Machine is the host the campaign runs on (its plan is there); the
	// store's copy carries it so that status finds a host's campaign.
	Machine *Machine `json:"machine,omitempty"`
	// HostSet names who sets this guest's kernel command line when no
	// boot loader here does (advise.HostSetBy, "" elsewhere): only kexec
	// boots another line, and where it cannot the lab is the way. Said,
	// never stored.
	HostSet string `json:"-"`
}

// storedConfig is a configuration as the store keeps it: its name and the
// parameters as one string (bootconfig.Parse reads it back).
type storedConfig struct {
	Name   string `json:"name"`
	Params string `json:"params"`
}

func encodeConfigs(cs []bootconfig.Config) (string, error) {
	out := make([]storedConfig, len(cs))
	for i, c := range cs {
		out[i] = storedConfig{c.Name, c.String()}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

func decodeConfigs(s string) ([]bootconfig.Config, error) {
	var in []storedConfig
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("stored configurations: %w", err)
	}
	var out []bootconfig.Config
	for _, c := range in {
		spec := c.Name
		if c.Params != "" {
			spec = c.Name + "=" + c.Params
		}
		if c.Name == "on" && c.Params == "" {
			spec = "on"
		}
		cfg, err := bootconfig.Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("stored configuration %s: %w", c.Name, err)
		}
		out = append(out, cfg)
	}
	return out, nil
}

// distroRE is what a WSL distribution name may be (it reaches wsl.exe -d).
var distroRE = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._ -]{0,63}$`)

// keyRE is a Machine key.
var keyRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// MaxBudget bounds --budget: a campaign that reboots for longer than a
// month is not an experiment any more.
const MaxBudget = 31 * 24 * time.Hour

// Check validates options as the flags that made them were validated, so
// that options read back from the store (which anyone who can write it
// can edit) are held to the same rules before resume acts on them: counts
// within plan's maxima, paths absolute, no value that could become a flag
// of the program it reaches. The workload selection and parameters are
// checked again by plan.Make when each step is measured.
func (o Options) Check() error {
	if o.Repetitions < 0 || o.Warmup < 0 {
		return errors.New("runs and warmup must not be negative")
	}
	if err := plan.CheckCounts(o.Repetitions, o.Warmup); err != nil {
		return err
	}
	for _, p := range []struct{ name, v string }{{"kernel", o.Kernel}, {"initrd", o.Initrd}, {"wslconfig", o.WSLConfig}, {"exe", o.Exe}} {
		if p.v != "" && (!filepath.IsAbs(p.v) || strings.ContainsAny(p.v, "\x00\n\r")) {
			return fmt.Errorf("%s %q is not an absolute path", p.name, p.v)
		}
	}
	if o.DB != "" {
		if ref, err := store.ParseRef(o.DB); err == nil && ref.IsURL() {
			if ref.HasPassword() {
				return errors.New("the store URL holds a password, which sectax never stores")
			}
		} else if !filepath.IsAbs(o.DB) || strings.ContainsAny(o.DB, "\x00\n\r") {
			return fmt.Errorf("db %q is not an absolute path", o.DB)
		}
	}
	if o.Distro != "" && !distroRE.MatchString(o.Distro) {
		return fmt.Errorf("distro %q is not a WSL distribution name", o.Distro)
	}
	for _, v := range append(append(append([]string{o.Suite}, o.Only...), o.Skip...), o.Params...) {
		if strings.HasPrefix(v, "-") {
			return fmt.Errorf("%q starts with '-'", v)
		}
	}
	switch o.Resume {
	case "", "unit", "interop", "by hand":
	default:
		return fmt.Errorf("resume %q is not unit, interop or by hand", o.Resume)
	}
	if math.IsNaN(o.TargetCI) || math.IsInf(o.TargetCI, 0) || o.TargetCI < 0 {
		return fmt.Errorf("target_ci %v is not a finite number of points", o.TargetCI)
	}
	if m := o.Machine; m != nil && (!keyRE.MatchString(m.Key) || len(m.Hostname) > 255 || strings.ContainsFunc(m.Hostname, func(r rune) bool { return r < ' ' || r == 0x7f })) {
		return errors.New("machine is not one sectax records")
	}
	if o.Budget < 0 || o.Budget > MaxBudget {
		return fmt.Errorf("budget %v is not 0 to %v", o.Budget, MaxBudget)
	}
	return nil
}
