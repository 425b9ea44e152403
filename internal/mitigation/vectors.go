package mitigation

import (
	"fmt"
	"slices"
	"strings"
)

// The attack-vector table: which attack vectors each bug's mitigation
// serves, and the command line that drops a set of vectors on one kernel.
//
// The kernel's table is should_mitigate_vuln() in
// arch/x86/kernel/cpu/bugs.c (Linux 6.17+), documented in
// Documentation/admin-guide/hw-vuln/attack_vector_controls.rst. Line
// numbers are those of Linux 6.18.2 (gfunkmonk/linux-6.18.2, commit
// 57dc26c98e5e of bugs.c); the 6.17 text (Kingxukai/linux@0291023e7330)
// and the 6.18 text of the code index (file id 335243211) have the same
// table:
//
//	bugs.c 390-442 should_mitigate_vuln():
//	398-399  X86_BUG_SPECTRE_V1                      user_kernel
//	401-406  X86_BUG_SPECTRE_V2, RETBLEED, L1TF, ITS user_kernel || guest_host
//	408-410  X86_BUG_SPECTRE_V2_USER                 user_user || guest_guest
//	417-425  X86_BUG_MDS, TAA, MMIO_STALE_DATA,      user_kernel || guest_host ||
//	           RFDS, SRBDS                           user_user || guest_guest
//	427-432  X86_BUG_GDS                             the four || cross_thread (smt_mitigations != SMT_MITIGATIONS_OFF)
//	434-435  X86_BUG_SPEC_STORE_BYPASS               user_user
//	437-438  X86_BUG_VMSCAPE                         guest_host
//
// and, outside should_mitigate_vuln(): arch/x86/mm/pti.c 88-90
// pti_check_boottime_disable (meltdown: user_kernel), bugs.c 3043-3066
// srso_select_mitigation (safe RET for user_kernel || guest_host; its
// per-mode vectors in vectorparts.go), 1714-1740 tsa_select_mitigation
// (the four vectors: user/kernel mode for user_kernel || user_user, VM mode
// for guest_host || guest_guest, both for full: the file stays on while any
// is kept, and the narrower mode is weakened, vectorparts.go),
// 2213-2229 bhi_select_mitigation (spectre_v2's BHI sub-field), 1899-1917
// spectre_v2_user_select_mitigation (its IBPB/STIBP sub-fields); the
// vectors' defaults and parser are kernel/cpu.c 3189-3194 (guest_host and
// guest_guest default to IS_ENABLED(CONFIG_KVM)), 3230 (smt_mitigations =
// AUTO) and 3264-3313 (mitigations_parse_cmdline). The knowledge base's
// "vectors" of each vulnerability carry this table; mainVectors (model.go)
// narrows spectre_v2's main line to user_kernel || guest_host (its
// user_user/guest_guest part is the STIBP/IBPB sub-field of
// spectre_v2_user), and vectorparts.go has what depends on a mode or a
// sub-field, cross_thread's part included.

// VectorControlsSince is the first kernel release with attack-vector
// controls (mitigations=auto,no_<vector>, kernel/cpu.c, x86 only).
const VectorControlsSince = "6.17"

// VectorsOf are the attack vectors whose protection keeps the file's main
// mitigation on (the kernel's table above); nil when no vector governs it.
func (k *Knowledge) VectorsOf(file string) []string {
	if v, ok := mainVectors[file]; ok {
		return v
	}
	e, _ := k.LookupVulnerability(file)
	return e.Vectors
}

// HasVectorControls reports whether m's kernel parses
// mitigations=auto,no_<vector>: x86 from 6.17, with the global switch
// built in.
func (k *Knowledge) HasVectorControls(m Machine) bool {
	return m.Arch == "x86" && kbAtLeast(m.Release, VectorControlsSince, false) && !m.NoGlobalSwitch
}

// VectorDrop is the command line that drops a set of attack vectors on one
// machine, and what the model predicts it does there.
type VectorDrop struct {
	// Drop are the vectors dropped, in the kernel's order.
	Drop []string `json:"drop"`
	// Params are the kernel parameters, in this kernel's syntax.
	Params []string `json:"params"`
	// Syntax is "vectors" (mitigations=auto,no_…) or "per-bug".
	Syntax string `json:"syntax"`
	// Off are the files m shows mitigated that the model predicts off.
	Off []string `json:"off"`
	// Weakened stay mitigated with a sub-field off.
	Weakened []string `json:"weakened,omitempty"`
	// Inexact says what a per-bug spelling cannot reproduce of the
	// kernel's own vector control.
	Inexact []string `json:"inexact,omitempty"`
}

// Cmdline is the parameters as one command-line fragment.
func (d VectorDrop) Cmdline() string { return strings.Join(d.Params, " ") }

// SortVectors returns the known vectors of vs in the kernel's order
// (Vectors), without repeats; an unknown name is an error.
func SortVectors(vs []string) ([]string, error) {
	for _, v := range vs {
		if !slices.Contains(Vectors, v) {
			return nil, fmt.Errorf("unknown attack vector %q (want %s)", v, strings.Join(Vectors, ", "))
		}
	}
	var out []string
	for _, v := range Vectors {
		if slices.Contains(vs, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// DropVectors is the command line that drops the vectors in drop on m: on
// a kernel with attack-vector controls the kernel's own syntax; before,
// the per-bug parameters this kernel parses that turn off exactly the
// files whose every vector is dropped (SmallestOff, checked by the model).
// ok is false when the line would change nothing m shows mitigated (a
// no-op is never offered) or no parameter set reaches it.
func (k *Knowledge) DropVectors(m Machine, drop []string) (d VectorDrop, ok bool, err error) {
	if d.Drop, err = SortVectors(drop); err != nil || len(d.Drop) == 0 {
		return d, false, err
	}
	if m.Arch != "x86" {
		return d, false, nil
	}
	if k.HasVectorControls(m) {
		opt := "auto"
		for _, v := range d.Drop {
			opt += ",no_" + v
		}
		d.Syntax, d.Params = "vectors", []string{"mitigations=" + opt}
	} else {
		d.Syntax = "per-bug"
		var want []string
		for _, v := range k.changeableFiles(m) {
			vs := k.vectorsOfLine(v.Name, v.Raw)
			if len(vs) > 0 && !slices.ContainsFunc(vs, func(x string) bool { return !slices.Contains(d.Drop, x) }) {
				want = append(want, v.Name)
			}
		}
		if len(want) > 0 {
			toks, reached := k.SmallestOff(m, want)
			if !reached {
				d.Inexact = append(d.Inexact, fmt.Sprintf("no per-bug parameter set of kernel %s turns off exactly %s", m.Release, strings.Join(want, ", ")))
				return d, false, nil
			}
			d.Params = toks
		}
		// spectre_v2_user's STIBP/IBPB serve user_user || guest_guest.
		if slices.Contains(d.Drop, "user_user") && slices.Contains(d.Drop, "guest_guest") && k.parsesKey(m, "spectre_v2_user") &&
			k.Predict(m, ParseCmdline("spectre_v2_user=off").Params).Of("spectre_v2").Partial {
			d.Params = append(d.Params, "spectre_v2_user=off")
		}
		if slices.Contains(d.Drop, "cross_thread") {
			d.Inexact = append(d.Inexact, fmt.Sprintf("cross_thread: kernel %s has no parameter for it alone; it leaves SMT on by default already, and its STIBP goes only with spectre_v2_user=off", m.Release))
		}
		if slices.Contains(d.Drop, "guest_host") && !slices.Contains(d.Drop, "user_kernel") || slices.Contains(d.Drop, "user_kernel") && !slices.Contains(d.Drop, "guest_host") {
			d.Inexact = append(d.Inexact, fmt.Sprintf("kernel %s cannot keep the VM-entry half of a protection while dropping its kernel-entry half (or the reverse): bugs served by both stay on", m.Release))
		}
	}
	if len(d.Params) == 0 {
		return d, false, nil
	}
	// The sets are Outcome's, as advise --target gives them for the
	// same line (issue 37: one answer per question).
	o := k.Outcome(m, ParseCmdline(d.Cmdline()).Params)
	if len(o.Ignored) > 0 {
		return d, false, nil
	}
	d.Off, d.Weakened = o.GivenUp, o.Weakened
	return d, len(d.Off)+len(d.Weakened) > 0, nil
}

// parsesKey reports whether m's kernel parses the parameter key.
func (k *Knowledge) parsesKey(m Machine, key string) bool {
	kp, ok := k.lookupParam(key)
	return ok && k.parses(m, kp)
}

// RunningVectorsOff are the vectors a running command line already drops
// (mitigations=auto,no_guest_host…): a vector configuration is applied on
// top of that line, and replacing its mitigations= with one that omits
// them would turn them back on.
func (k *Knowledge) RunningVectorsOff(m Machine, cmdline string) []string {
	if !k.HasVectorControls(m) {
		return nil
	}
	// Every mitigations= in turn, as the kernel reads them (FoldGlobal):
	// "mitigations=auto,no_guest_host mitigations=auto" still drops
	// guest_host from 6.17 (the handler only ever clears vectors), and
	// an unknown item ends the list.
	g := foldedGlobal(ParseCmdline(cmdline).Params, true, true)
	if g == nil || g.Option != "auto" {
		return nil
	}
	out, _ := SortVectors(g.VectorsOff)
	return out
}
