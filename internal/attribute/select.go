package attribute

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/ui"
)

// Selections are the plan kinds `--plan` of sectax campaign and sectax
// lab accepts.
var Selections = []string{KindLeaveOneOut, KindCumulative, KindStudy, KindVectors}

// Selection is the part of a plan one experiment boots: its
// configurations in order (on first, the baseline of the comparison), and
// those it leaves out because booting them measures nothing new here.
type Selection struct {
	Kind    string
	Configs []bootconfig.Config
	// Skipped say, one line each, which planned configurations are not
	// booted and why (the same parameters as another, or no vulnerability
	// file changes on this kernel).
	Skipped []string
}

// Select picks the configurations of one kind from the plan: on, off and
// every leave-one-out (leave-one-out); the waterfall from on to off
// (cumulative); on, off and the study's halves (study); on, off and the
// attack-vector configurations (vectors). Configurations
// the plan marks boot: false are skipped, and say why.
func (p *Design) Select(kind string) (*Selection, error) {
	var names []string
	switch kind {
	case KindLeaveOneOut, KindStudy, KindVectors:
		for _, c := range p.Configurations {
			if c.Kind == KindBase || c.Kind == kind {
				names = append(names, c.Name)
			}
		}
	case KindCumulative:
		names = append(names, "on")
		names = append(names, p.Cumulative...)
		if !slices.Contains(names, "off") {
			names = append(names, "off")
		}
	default:
		return nil, fmt.Errorf("%w: plan %q is not one of %s", bootconfig.ErrConfig, kind, strings.Join(Selections, ", "))
	}
	sel := &Selection{Kind: kind}
	for _, name := range names {
		i := slices.IndexFunc(p.Configurations, func(c Planned) bool { return c.Name == name })
		if i < 0 || slices.ContainsFunc(sel.Configs, func(c bootconfig.Config) bool { return c.Name == name }) {
			continue
		}
		c := p.Configurations[i]
		switch {
		case c.Boot:
			sel.Configs = append(sel.Configs, c.Config)
		case c.SameAs != "":
			sel.Skipped = append(sel.Skipped, fmt.Sprintf("%s: the same parameters as %s (one boot serves both)", c.Name, c.SameAs))
		default:
			why := strings.Join(c.NoEffect, "; ")
			if why == "" {
				why = c.String() + " changes no vulnerability file on this kernel"
			}
			sel.Skipped = append(sel.Skipped, fmt.Sprintf("%s: %s", c.Name, why))
		}
	}
	if !slices.ContainsFunc(sel.Configs, func(c bootconfig.Config) bool { return c.Name != "on" && c.Name != "off" }) {
		return nil, fmt.Errorf("%w: the %s plan of kernel %s has no configuration besides on and off (no active mitigation that a parameter turns off alone); use --config on --config off",
			bootconfig.ErrConfig, kind, p.Kernel)
	}
	return sel, nil
}

// Only is the plan restricted to the configurations a selection of kind
// boots or skips (what `attribute plan --plan KIND` shows).
func (p *Design) Only(kind string) (*Design, error) {
	sel, err := p.Select(kind)
	if err != nil {
		return nil, err
	}
	q := *p
	q.Configurations = []Planned{}
	for _, c := range p.Configurations {
		keep := slices.ContainsFunc(sel.Configs, func(x bootconfig.Config) bool { return x.Name == c.Name }) ||
			slices.ContainsFunc(sel.Skipped, func(s string) bool { return strings.HasPrefix(s, c.Name+":") })
		if keep {
			q.Configurations = append(q.Configurations, c)
		}
	}
	if kind != KindCumulative {
		q.Cumulative = []string{}
	}
	return &q, nil
}

// SayPlan says which configurations a plan of kind for kernel boots, and
// which it leaves out and why, on p (lab and campaign alike).
func SayPlan(p ui.Printer, kind, kernel string, sel *Selection) {
	var names []string
	for _, c := range sel.Configs {
		names = append(names, c.Name)
	}
	p.Notef("plan %s for kernel %s: %d configurations: %s", kind, kernel, len(names), strings.Join(names, ", "))
	for _, sk := range sel.Skipped {
		p.Notef("  not booted: %s", sk)
	}
}
