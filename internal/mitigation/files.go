package mitigation

import "strings"

// Class names of what a command line does to a file that is not
// mitigated on the machine (the counterpart of ClassGivenUp, ClassWeakened
// and ClassKept): it becomes mitigated (a gain: retbleed=force on a CPU not
// affected, a per-bug value after mitigations=off), or it goes from "Not
// affected" to vulnerable (a forced bug left unmitigated).
const (
	ClassGained = "gained"
	ClassForced = "forced vulnerable"
)

// FileState is one vulnerability file's text and class (its State): what
// a boot showed, or what the model predicts. Text is "" where the model
// predicts the class but not the words.
type FileState struct {
	Text  string `json:"text"`
	Class State  `json:"class"`
}

// FilePrediction is what a command line is predicted to do to one file
// the machine shows: From is the machine's line, To the predicted one,
// Change the class of the change (ClassOf's given up, weakened, kept;
// ClassGained, ClassForced; "" when the file stays as it is) and By the
// parameter responsible.
type FilePrediction struct {
	Name   string    `json:"name"`
	From   FileState `json:"from"`
	To     FileState `json:"to"`
	Change string    `json:"change,omitempty"`
	By     string    `json:"by,omitempty"`
}

// PredictFiles is the model's per-file answer for every file m shows,
// moving from the running parameters to params (running nil: the kernel's
// default): Predict for both lines, each mitigated file classed by ClassOf
// and the others by what the line gains or forces. advise --target, its
// proof and decide's proof all read a line's files through it.
func (k *Knowledge) PredictFiles(m Machine, running, params []Param) []FilePrediction {
	before, now := k.Predict(m, running), k.Predict(m, params)
	out := make([]FilePrediction, 0, len(m.Vulns))
	for _, v := range m.Vulns {
		raw := strings.TrimSpace(v.Raw)
		fp := FilePrediction{Name: v.Name, From: FileState{Text: raw, Class: v.State}, To: FileState{Text: raw, Class: v.State}}
		b, n := before.Of(v.Name), now.Of(v.Name)
		switch v.State {
		case Mitigated:
			class := k.ClassOf(m.Arch, v, n)
			if class == "" || class == k.ClassOf(m.Arch, v, b) {
				break
			}
			fp.Change, fp.By = class, n.By
			_, weakened := k.KeptAnyway(m.Arch, v.Name, v.Raw)
			switch {
			case class == ClassGivenUp:
				fp.To = FileState{Class: Vulnerable}
			case class == ClassWeakened && n.Off && weakened != "":
				fp.To = FileState{Text: weakened, Class: Mitigated}
			case class == ClassWeakened:
				// A sub-field changes: the words after it are not predicted.
				fp.To = FileState{Class: Mitigated}
			default:
				if n.Kept != "" && fp.By == "" {
					fp.By = n.Kept
				}
			}
		default:
			switch {
			case n.Becomes != "" && n.Becomes != b.Becomes && n.Becomes != v.State:
				fp.To = FileState{Class: n.Becomes}
				fp.Change, fp.By = ClassGained, n.By
				if n.Becomes != Mitigated {
					fp.Change = ClassForced
				}
			case v.State == Vulnerable && b.Off && !n.Off:
				// The running line turned it off; this one does not.
				fp.To = FileState{Class: Mitigated}
				fp.Change, fp.By = ClassGained, b.By
			}
		}
		out = append(out, fp)
	}
	return out
}
