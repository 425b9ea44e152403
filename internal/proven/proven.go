// Package proven is the model of a proof (decide --prove, advise
// --prove): what a command line was predicted to do beside what a boot of
// the kernel showed, file by file, and what the observation holds for.
package proven

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Sets are what a command line does to the files mitigated under the
// kernel's default: each file is in one of them.
type Sets struct {
	GivesUp  []string `json:"gives_up"`
	Weakened []string `json:"weakened"`
	// Replaced are files mitigated by another mitigation (another text,
	// no part weakened); Kept, the same text (docs/decide.md).
	Replaced []string `json:"replaced"`
	Kept     []string `json:"kept"`
}

// Verdicts of a file, and of a row (its worst file).
const (
	// VerdictAgree: the boot shows the predicted class, and the predicted
	// text where the model predicts one.
	VerdictAgree = "agree"
	// VerdictDiffers: the boot shows another class than predicted
	// (vulnerable for mitigated, mitigated for not affected, weakened for
	// kept, or the file gone).
	VerdictDiffers = "differs"
	// VerdictReplaced: predicted and observed both mitigated, by different
	// mitigations (another text where the model predicted one).
	VerdictReplaced = "replaced"
)

// File is one vulnerability file of a proof row: the model's prediction
// beside the boot's observation, and the verdict.
type File struct {
	Name      string               `json:"name"`
	Predicted mitigation.FileState `json:"predicted"`
	Observed  mitigation.FileState `json:"observed"`
	Verdict   string               `json:"verdict"`
}

// Absent is the observed class of a file the boot no longer shows.
const Absent mitigation.State = "absent"

// Row is one option, predicted beside observed.
type Row struct {
	Option  string `json:"option"`
	Cmdline string `json:"cmdline"`
	// Booted is the command line whose boot proves the row ("" the
	// default's: keep-all, and an option the same as keep-all here).
	Predicted Sets `json:"predicted"`
	Observed  Sets `json:"observed"`
	// Files are every vulnerability file of the boots, predicted beside
	// observed, whether or not the default boot shows it mitigated.
	Files []File `json:"files"`
	// Verdict is the row's worst file verdict (differs, then replaced,
	// then agree); Agree is Verdict == agree. Disagreements name each file
	// that does not agree, with both texts.
	Verdict       string   `json:"verdict"`
	Agree         bool     `json:"agree"`
	Disagreements []string `json:"disagreements"`
	// SMT is the guest's SMT state under this line ("control on, active
	// false").
	SMT string `json:"smt"`
	// Stored is true when the observation came from the proof cache.
	Stored bool `json:"stored"`
}

// Proof is the side-by-side of `decide --prove`: the kernel image booted
// once per option, under which accelerator and CPU, and what each boot
// showed beside what the model predicted.
type Proof struct {
	Image   string `json:"image"`
	SHA256  string `json:"kernel_sha256"`
	Release string `json:"release"`
	Accel   string `json:"accel"`
	CPU     string `json:"cpu"`
	// CPUWhy says where CPU came from (--cpu, the model nearest this
	// machine's, -cpu host under kvm).
	CPUWhy string `json:"cpu_why"`
	// View is the guests' topology and the hypervisor they see ("" for
	// a proof stored before it was said).
	View string `json:"view,omitempty"`
	// Booted and Stored count the command lines booted now and those
	// answered from the proof cache.
	Booted int   `json:"booted"`
	Stored int   `json:"stored"`
	Rows   []Row `json:"rows"`
	Agree  bool  `json:"agree"`
	// Holds says what of the observation holds for this machine's CPU,
	// Emulated what depends on the CPU QEMU presents, Guest what being a
	// guest changes.
	Holds    []string `json:"holds"`
	Emulated []string `json:"emulated"`
	Guest    []string `json:"guest"`
	Notes    []string `json:"notes"`
}

// ObservedSets are what got shows of the files mitigated in base, each
// sorted by mitigation.ObservedClass (the corpus replay's classification):
// a file no longer mitigated (or gone) is given up, one that lost a
// sub-protection weakened, one with another text replaced, the rest kept.
func ObservedSets(base, got *sysinfo.Snapshot) Sets {
	s := NewSets()
	for _, v := range base.Vulnerabilities {
		if v.State != mitigation.Mitigated {
			continue
		}
		w, ok := Vuln(got, v.Name)
		c := mitigation.ClassGivenUp
		if ok {
			c = mitigation.ObservedClass(v, w)
		}
		switch c {
		case mitigation.ClassGivenUp:
			s.GivesUp = append(s.GivesUp, v.Name)
		case mitigation.ClassWeakened:
			s.Weakened = append(s.Weakened, v.Name)
		default:
			if strings.TrimSpace(w.Raw) != strings.TrimSpace(v.Raw) {
				s.Replaced = append(s.Replaced, v.Name)
				continue
			}
			s.Kept = append(s.Kept, v.Name)
		}
	}
	return s
}

// SetsOf are the predicted sets of a per-file prediction, over the files
// mitigated before, in ObservedSets' words: given up, weakened, replaced
// (still mitigated, with a predicted text other than the file's now) and
// kept. The proof's predicted sets are made only here, from the same
// per-file prediction its file verdicts compare (Side).
func SetsOf(files []mitigation.FileView) Sets {
	s := NewSets()
	for _, f := range files {
		if f.From.Class != mitigation.Mitigated {
			continue
		}
		switch {
		case f.Change == mitigation.ClassGivenUp:
			s.GivesUp = append(s.GivesUp, f.Name)
		case f.Change == mitigation.ClassWeakened:
			s.Weakened = append(s.Weakened, f.Name)
		case f.To.Text != "" && f.To.Text != f.From.Text:
			s.Replaced = append(s.Replaced, f.Name)
		default:
			s.Kept = append(s.Kept, f.Name)
		}
	}
	return s
}

// NewSets are empty sets (lists, not null, in JSON).
func NewSets() Sets {
	return Sets{GivesUp: []string{}, Weakened: []string{}, Replaced: []string{}, Kept: []string{}}
}

// Vuln is the file name of s (ok false when s does not show it).
func Vuln(s *sysinfo.Snapshot, name string) (mitigation.Vulnerability, bool) {
	for _, v := range s.Vulnerabilities {
		if v.Name == name {
			return v, true
		}
	}
	return mitigation.Vulnerability{}, false
}

// Input is what the boots gave: the guest's snapshot per command line
// ("" the kernel's default), already checked against what the host
// passed (vm.CheckObserved), and how they were booted.
type Input struct {
	Image, SHA256, Release, Accel, CPU, CPUWhy string
	// HostCPU is this machine's CPU model name.
	HostCPU string
	// View is how the guests were booted: their SMT topology and the
	// hypervisor they see (proof.Session.View).
	View string
	Obs  map[string]*sysinfo.Snapshot
	// Stored are the command lines answered from the cache.
	Stored map[string]bool
	Booted int
}

// New is the proof of in without rows: what was booted, how, and what
// the observation holds for (Scope).
func New(in Input) *Proof {
	p := &Proof{Image: in.Image, SHA256: in.SHA256, Release: in.Release, Accel: in.Accel, CPU: in.CPU, CPUWhy: in.CPUWhy, View: in.View,
		Booted: in.Booted, Stored: len(in.Stored), Rows: []Row{}, Agree: true, Notes: []string{}}
	base := in.Obs[""]
	if base == nil {
		base = &sysinfo.Snapshot{}
	}
	if len(base.Vulnerabilities) == 0 {
		p.Notes = append(p.Notes, "the booted kernel shows no vulnerability files: the proof cannot tell what a command line gives up")
		p.Agree = false
	}
	p.Holds, p.Emulated, p.Guest = Scope(in.Accel, in.CPU, in.HostCPU, base)
	return p
}

// Add lays a line's prediction beside its boot got (against the default
// boot base) and appends the row: files are the model's per-file
// prediction (mitigation.Knowledge.PredictFiles on base).
func (p *Proof) Add(option, cmdline string, base, got *sysinfo.Snapshot, files []mitigation.FileView, stored bool) Row {
	row := Side(option, cmdline, base, got, files)
	row.Stored = stored
	if !row.Agree {
		p.Agree = false
	}
	p.Rows = append(p.Rows, row)
	return row
}

// Side is one row: every file's predicted text and class beside what the
// boot got shows, with a verdict each (Compare), and the predicted sets
// (SetsOf the same prediction) beside the observed ones (against the
// default boot base); a line names each file that does not agree.
func Side(option, cmdline string, base, got *sysinfo.Snapshot, files []mitigation.FileView) Row {
	byName := map[string]mitigation.FileView{}
	for _, f := range files {
		byName[f.Name] = f
	}
	views := make([]mitigation.FileView, 0, len(base.Vulnerabilities))
	for _, v := range base.Vulnerabilities {
		fp, ok := byName[v.Name]
		if !ok {
			// The model was not asked about this file: it stays as it is.
			now := mitigation.FileState{Text: strings.TrimSpace(v.Raw), Class: v.State}
			fp = mitigation.FileView{Name: v.Name, From: now, To: now, Change: mitigation.ClassKept}
		}
		views = append(views, fp)
	}
	row := Row{Option: option, Cmdline: cmdline, Predicted: SetsOf(views), Observed: ObservedSets(base, got), Files: []File{}, Verdict: VerdictAgree,
		Disagreements: []string{}, SMT: smtState(got)}
	for i, v := range base.Vulnerabilities {
		fp := views[i]
		w, seen := Vuln(got, v.Name)
		f := Compare(v, fp, w, seen)
		row.Files = append(row.Files, f)
		if f.Verdict == VerdictAgree {
			continue
		}
		row.worse(f.Verdict)
		pw, ow := fileText(f.Predicted), fileText(f.Observed)
		if f.Verdict == VerdictDiffers && f.Predicted.Class == f.Observed.Class {
			// Both mitigated: one of them weakened.
			pw, ow = subClass(fp.Change == mitigation.ClassWeakened)+" "+pw, subClass(mitigation.ObservedClass(v, w) == mitigation.ClassWeakened)+" "+ow
		}
		row.Disagreements = append(row.Disagreements, fmt.Sprintf("%s: %s %s: predicted %s, observed %s", option, v.Name, f.Verdict, pw, ow))
	}
	for _, w := range got.Vulnerabilities {
		if _, ok := Vuln(base, w.Name); ok {
			continue
		}
		// A file the default boot does not show: nothing predicted it.
		f := File{Name: w.Name, Predicted: mitigation.FileState{Class: Absent}, Observed: mitigation.FileState{Text: safetext.Clip(strings.TrimSpace(w.Raw), 200), Class: w.State}, Verdict: VerdictDiffers}
		row.Files = append(row.Files, f)
		row.worse(f.Verdict)
		row.Disagreements = append(row.Disagreements, fmt.Sprintf("%s: %s %s: predicted absent, observed %s", option, w.Name, f.Verdict, fileText(f.Observed)))
	}
	row.Agree = row.Verdict == VerdictAgree
	if a, b := smtState(base), row.SMT; a != b {
		row.Disagreements = append(row.Disagreements, fmt.Sprintf("%s: SMT %s under this line (%s by default)", option, b, a))
	}
	return row
}

// worse makes v the row's verdict when it is worse than the one it has.
func (r *Row) worse(v string) {
	rank := map[string]int{VerdictAgree: 0, VerdictReplaced: 1, VerdictDiffers: 2}
	if rank[v] > rank[r.Verdict] {
		r.Verdict = v
	}
}

// Compare is one file's verdict: base is the default boot's line, fp the
// model's prediction on it, got the boot's line (seen false: the file is
// gone). Another class is "differs", and so is a mitigated line weakened
// where the model keeps it whole or the other way round
// (mitigation.ObservedClass); both mitigated with another text than the
// one predicted is "replaced", and so is a kept line whose text the model
// left open (a parameter selects its mode) that reads another than the
// default boot's.
func Compare(base mitigation.Vulnerability, fp mitigation.FileView, got mitigation.Vulnerability, seen bool) File {
	f := File{Name: base.Name, Predicted: fp.To, Observed: mitigation.FileState{Class: Absent}, Verdict: VerdictAgree}
	f.Predicted.Text = safetext.Clip(f.Predicted.Text, 200)
	if seen {
		f.Observed = mitigation.FileState{Text: safetext.Clip(strings.TrimSpace(got.Raw), 200), Class: got.State}
	}
	switch {
	case f.Predicted.Class != f.Observed.Class:
		f.Verdict = VerdictDiffers
	case f.Observed.Class != mitigation.Mitigated:
	case base.State == mitigation.Mitigated && (fp.Change == mitigation.ClassWeakened) != (mitigation.ObservedClass(base, got) == mitigation.ClassWeakened):
		f.Verdict = VerdictDiffers
	case f.Predicted.Text != "" && f.Predicted.Text != f.Observed.Text:
		f.Verdict = VerdictReplaced
	case f.Predicted.Text == "" && base.State == mitigation.Mitigated && fp.Change != mitigation.ClassWeakened &&
		safetext.Clip(strings.TrimSpace(base.Raw), 200) != f.Observed.Text:
		f.Verdict = VerdictReplaced
	}
	return f
}

func subClass(weakened bool) string {
	if weakened {
		return mitigation.ClassWeakened
	}
	return mitigation.ClassKept
}

// fileText is a file's class and text for a line of text.
func fileText(s mitigation.FileState) string {
	if s.Text == "" {
		return string(s.Class)
	}
	return fmt.Sprintf("%s %q", s.Class, s.Text)
}

func smtState(s *sysinfo.Snapshot) string {
	active := "unknown"
	if s.SMT.Active != nil {
		active = fmt.Sprint(*s.SMT.Active)
	}
	c := s.SMT.Control
	if c == "" {
		c = "unknown"
	}
	return "control " + safetext.Clip(c, 40) + ", active " + active
}

// Scope says, for a proof under accel with QEMU's cpu on a host whose
// CPU is hostCPU, what the observation holds for (this machine's CPU),
// what depends on the CPU QEMU presents, and what being a guest changes
// (base is the default boot).
func Scope(accel, cpu, hostCPU string, base *sysinfo.Snapshot) (holds, emulated, guest []string) {
	holds = []string{
		"what this kernel does with each command line: which parameters it parses, which attack vectors and per-bug values it honours, and which mitigations it then turns off: the kernel's code, the same on any CPU with the same bugs",
	}
	if accel == "kvm" {
		holds = append(holds, fmt.Sprintf("under kvm the guest runs -cpu host: the bugs the kernel finds affected and the mitigations it picks are this machine's CPU's (%s) and microcode's, as KVM passes them through", safetext.Line(hostCPU)))
		emulated = []string{
			"CPUID and ARCH_CAPABILITIES bits KVM hides or synthesises for a guest can change a bug's verdict or mitigation from what the host shows",
		}
	} else {
		emulated = []string{
			fmt.Sprintf("under tcg the CPU is QEMU's %s model, not this machine's %s: which bugs are listed as affected, which mitigation the kernel picks (eIBRS or retpolines, VERW buffer clears, microcode features such as MD_CLEAR) and every \"Not affected\" come from that model and the features QEMU emulates", safetext.Line(cpu), safetext.Line(hostCPU)),
			"a file that differs from this machine's own is a fact of the emulated CPU; a file that changes between two command lines is a fact of the kernel",
		}
	}
	guest = []string{
		"l1tf: a guest shows the VMX part of the host it cannot see, and its L1D flush at VM entry is the host's to do",
		"itlb_multihit: a guest kernel does not run KVM guests of its own here, so its \"KVM:\" line is the guest's view, not the host's",
	}
	if slices.ContainsFunc(base.Vulnerabilities, func(v mitigation.Vulnerability) bool { return strings.Contains(v.Raw, "SMT Host state unknown") }) {
		// Not where the guest decides as on bare metal (clearcpuid=hypervisor).
		guest = append(guest, "\"SMT Host state unknown\" in mds, mmio_stale_data, tsx_async_abort: a guest cannot see whether the host's SMT is on")
	}
	if base.SMT.Active == nil || !*base.SMT.Active {
		guest = append(guest, "the guest has no SMT siblings: what a line does to SMT and to STIBP (cross_thread) shows only where the guest has two threads a core")
	}
	return holds, emulated, guest
}

// ProofDisagreements are the lines naming every disagreement of p.
func (p *Proof) Disagreements() []string {
	var out []string
	for _, r := range p.Rows {
		out = append(out, r.Disagreements...)
	}
	return out
}

// SetsLine is a set list for text: "none" when empty.
func SetsLine(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}
