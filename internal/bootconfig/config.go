// Package bootconfig is the configuration model that lab, campaign and
// attribution share: a configuration is a name and the kernel parameters it
// adds to the default command line ("on" adds nothing, "off" adds
// mitigations=off). Verify checks a booted kernel against one
// configuration of a plan before any sample is taken; a boot that does not
// verify is never measured.
package bootconfig

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
)

// ErrConfig is wrapped by every error Parse and ParseAll return: a usage
// error (a --config value).
var ErrConfig = exit.New(exit.Usage, "bad configuration")

// Config is one configuration: a name and the kernel parameters it adds to
// the default command line.
type Config struct {
	Name   string             `json:"name"`
	Params []mitigation.Param `json:"params"`
}

// On and Off are the two configurations every plan starts from.
var (
	On  = Config{Name: "on", Params: []mitigation.Param{}}
	Off = Config{Name: "off", Params: []mitigation.Param{{Name: "mitigations", Value: "off", HasValue: true, Raw: "mitigations=off"}}}
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,31}$`)

// Parse reads one --config value: "on", "off", or "NAME=PARAMS" such as
// "off=mitigations=off" or "nopti=pti=off" (the name is everything before
// the first '='). PARAMS are a mitigation.Target's parameters (no
// quotes, no control characters, no parameter twice).
func Parse(s string) (Config, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "on":
		return On, nil
	case "off":
		return Off, nil
	case "":
		return Config{}, fmt.Errorf("%w: empty; give on, off or NAME=PARAMS such as off=mitigations=off", ErrConfig)
	}
	name, params, ok := strings.Cut(s, "=")
	if !ok {
		return Config{}, fmt.Errorf("%w: %q: give on, off or NAME=PARAMS such as %s=mitigations=off", ErrConfig, s, s)
	}
	if !nameRE.MatchString(name) {
		return Config{}, fmt.Errorf("%w: name %q: use 1-32 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", ErrConfig, name)
	}
	if name == "on" {
		return Config{}, fmt.Errorf("%w: on=%s: \"on\" is the default command line and adds nothing; name this configuration otherwise", ErrConfig, params)
	}
	if strings.TrimSpace(params) == "" {
		return Config{}, fmt.Errorf("%w: %s= adds no parameter; a configuration that adds nothing is \"on\"", ErrConfig, name)
	}
	t, err := mitigation.ParseTarget(params)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	for _, p := range t.Params {
		// advise answers such a line; a configuration would spend its
		// boots measuring what the kernel made of a value it ignored.
		if why, _ := mitigation.Unaccepted(p); why != "" {
			return Config{}, fmt.Errorf("%w: %s: %s, so the configuration would not measure what it names", ErrConfig, name, why)
		}
	}
	if t.Kind != mitigation.KindParams {
		// "x=off" or "x=auto" is shorthand for the target.
		t, _ = mitigation.ParseTarget(map[string]string{mitigation.KindOff: "mitigations=off"}[t.Kind])
		if t.Kind != mitigation.KindParams {
			return Config{}, fmt.Errorf("%w: %s=%s adds no parameter; a configuration that adds nothing is \"on\"", ErrConfig, name, params)
		}
	}
	return Config{Name: name, Params: t.Params}, nil
}

// ParseAll reads the --config values of one plan: on and off when none is
// given. Names must be unique, and no two configurations may add the same
// parameters (verification could not tell their boots apart).
func ParseAll(specs []string) ([]Config, error) {
	if len(specs) == 0 {
		return []Config{On, Off}, nil
	}
	var out []Config
	names := map[string]bool{}
	sets := map[string]string{}
	for _, s := range specs {
		c, err := Parse(s)
		if err != nil {
			return nil, err
		}
		if names[c.Name] {
			return nil, fmt.Errorf("%w: %q is given twice; name each configuration once", ErrConfig, c.Name)
		}
		names[c.Name] = true
		key := c.String()
		if prev, ok := sets[key]; ok {
			return nil, fmt.Errorf("%w: %s and %s add the same parameters (%q): their boots could not be told apart", ErrConfig, prev, c.Name, key)
		}
		sets[key] = c.Name
		out = append(out, c)
	}
	return out, nil
}

// String renders the parameters the configuration adds ("" for on).
func (c Config) String() string { return mitigation.Format(c.Params) }

// Tokens are the parameters as command-line words.
func (c Config) Tokens() []string {
	out := make([]string, 0, len(c.Params))
	for _, p := range c.Params {
		out = append(out, p.Raw)
	}
	return out
}

// Cmdline is the command line a boot under c gets: base without any
// parameter that a configuration of the plan sets, then c's parameters.
// Removing the plan's parameters first makes a second boot (a kexec from a
// boot of another configuration) carry exactly c's tokens. The words after
// a lone "--" (init's arguments) stay after c's parameters, whole.
func (c Config) Cmdline(base string, plan []Config) string {
	parsed := mitigation.ParseCmdline(base)
	params := parsed.Params
	var names []mitigation.Param // by name alone: every value goes
	for _, o := range append(plan, c) {
		for _, p := range o.Params {
			names = append(names, mitigation.Param{Name: p.Name})
		}
	}
	params, _ = mitigation.Remove(params, names)
	line := strings.TrimSpace(mitigation.Format(append(params, c.Params...)))
	if parsed.InitArgs != nil {
		line = strings.TrimSpace(line + " " + strings.Join(append([]string{"--"}, parsed.InitArgs...), " "))
	}
	return line
}

// Find returns the configuration called name.
func Find(plan []Config, name string) (Config, bool) {
	for _, c := range plan {
		if c.Name == name {
			return c, true
		}
	}
	return Config{}, false
}
