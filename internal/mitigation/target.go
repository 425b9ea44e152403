// The mitigation target: what the user wants the kernel command line to
// say (off, auto or explicit kernel parameters), the one vocabulary that
// advise's --target and --expect and config's NAME=PARAMS share.

package mitigation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/exit"
)

// ErrTarget is wrapped by every error ParseTarget returns (a usage error).
var ErrTarget = errors.New("bad target")

// The target kinds.
const (
	// KindOff is mitigations=off.
	KindOff = "off"
	// KindAuto is the kernel default: no mitigations= and no parameter
	// that turns a mitigation off.
	KindAuto = "auto"
	// KindParams is an explicit list of kernel parameters.
	KindParams = "params"
)

// Target is what the user wants the kernel command line to say.
type Target struct {
	// Kind is off, auto or params.
	Kind string `json:"kind"`
	// Raw is the text the user gave.
	Raw string `json:"raw"`
	// Params are the parameters the target sets (mitigations=off for off,
	// none for auto).
	Params []Param `json:"params"`
}

// String is the target as the user would type it again.
func (t Target) String() string {
	if t.Kind == KindParams {
		return Format(t.Params)
	}
	return t.Kind
}

// ParseTarget parses "off", "auto" (or its alias "on") or a PARAMS string
// ("mitigations=off audit=0"). It refuses parameters that would not reach
// the kernel as typed: unbalanced or any double quotes (the kernel groups
// blanks inside quotes and removes them, and WSL and GRUB's shell quoting
// remove them again, so a quoted value arrives split differently on each
// platform), non-ASCII or control characters, "--", an empty name, and the
// same parameter twice with different values, except mitigations=, whose
// every copy the kernel reads in order (FoldGlobal) and the model predicts.
func ParseTarget(s string) (Target, error) {
	trimmed := strings.TrimSpace(s)
	switch trimmed {
	case "off":
		return Target{Kind: KindOff, Raw: s, Params: []Param{{Name: "mitigations", Value: "off", HasValue: true, Raw: "mitigations=off"}}}, nil
	case "auto", "on":
		return Target{Kind: KindAuto, Raw: s, Params: []Param{}}, nil
	case "":
		return Target{}, fmt.Errorf("%w: empty target; give off, auto or kernel parameters such as \"mitigations=off audit=0\"", ErrTarget)
	}
	params, err := ParseParams(trimmed)
	if err != nil {
		return Target{}, fmt.Errorf("%w: %v", ErrTarget, err)
	}
	if len(params) == 0 {
		return Target{}, fmt.Errorf("%w: %q holds no kernel parameter; give off, auto or NAME=VALUE words", ErrTarget, s)
	}
	seen := map[string]Param{}
	for _, p := range params {
		if strings.Contains(p.Raw, `"`) {
			return Target{}, fmt.Errorf("%w: %s contains a double quote: the kernel splits its command line at blanks outside quotes and removes the quotes, and WSL and GRUB's shell quoting remove them again, so the value would not arrive as written; give plain NAME=VALUE words without blanks or quotes", ErrTarget, p.Raw)
		}
		if prev, ok := seen[p.Key()]; ok && prev.Raw != p.Raw && !Repeats(p) {
			return Target{}, fmt.Errorf("%w: %s is given twice (%s and %s); the kernel keeps only the last, so give it once", ErrTarget, p.Key(), prev.Raw, p.Raw)
		}
		seen[p.Key()] = p
		if err := checkKnown(p, len(params) == 1); err != nil {
			return Target{}, err
		}
	}
	return Target{Kind: KindParams, Raw: s, Params: Effective(params)}, nil
}

// checkKnown refuses a parameter that is a typo rather than advice, with
// Suggest's "did you mean": a name the knowledge base does not know (no
// kernel in its catalog accepts it) that is within two edits of one it
// knows, or of off, auto and on when it is the target's only word; a known
// mitigation parameter without a value; and one whose value holds an item
// within two edits of one the kernel accepts (Unaccepted). A value the
// kernel does not accept and that resembles none it does
// (mitigations=bogus,off) is not a typo but a question the model answers
// (what the kernel makes of it, advise's warning says it does not take it
// as written). Other parameters it does not know, close to none it knows
// (console=, panic=, no_timer_check), are kernel parameters outside the
// mitigations, kept as typed.
func checkKnown(p Param, alone bool) error {
	kb := mustKnowledge()
	if _, ok := kb.LookupParam(p.Name); !ok {
		bare := alone && !p.HasValue
		var names []string
		if bare {
			names = append(names, KindOff, KindAuto, "on")
		}
		for _, q := range kb.Params {
			names = append(names, q.Key)
		}
		hint := exit.DidYouMean(p.Name, names...)
		if hint == "" {
			return nil
		}
		return fmt.Errorf("%w: %s is not a kernel parameter sectax knows, and no kernel in its catalog accepts it: %s", ErrTarget, p.Raw, hint)
	}
	why, meant := Unaccepted(p)
	switch {
	case why == "":
		return nil
	case !p.HasValue:
		return fmt.Errorf("%w: %s (%s)", ErrTarget, why, kb.Syntax(p))
	case len(meant) > 0:
		return fmt.Errorf("%w: %s (%s): did you mean %s?", ErrTarget, why, kb.Syntax(p), strings.Join(meant, " or "))
	}
	return nil
}

// Syntax is the values p's parameter takes, as kernel-parameters.txt
// writes them ("" for a parameter sectax does not know).
func (k *Knowledge) Syntax(p Param) string {
	kp, _ := k.LookupParam(p.Name)
	return kp.Syntax
}

// Unaccepted says why the kernel does not take p as written ("" when it
// does, or p is no mitigation parameter sectax knows): a value that is not
// one the parameter accepts, or no value. meant are the values it may
// have meant, p with one item replaced by an accepted one within two
// edits of it (exit.Suggest), when one is.
func Unaccepted(p Param) (why string, meant []string) {
	kp, ok := mustKnowledge().LookupParam(p.Name)
	if !ok || !kp.Mitigation || EffectOf(p) != EffectInvalid {
		return "", nil
	}
	if !p.HasValue {
		return p.Raw + " needs a value", nil
	}
	var items []string
	for _, v := range kp.Values {
		for _, it := range strings.Split(v.Value, ",") {
			if !slices.Contains(items, it) {
				items = append(items, it)
			}
		}
	}
	got := strings.Split(p.Value, ",")
	for i, it := range got {
		if slices.Contains(items, it) {
			continue
		}
		for _, s := range exit.Suggest(it, items...) {
			fixed := slices.Clone(got)
			fixed[i] = s
			if m := p.Name + "=" + strings.Join(fixed, ","); !slices.Contains(meant, m) && len(meant) < 3 {
				meant = append(meant, m)
			}
		}
	}
	return fmt.Sprintf("%s is not a value of %s= the kernel accepts", p.Raw, p.Name), meant
}
