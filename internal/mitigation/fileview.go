package mitigation

import "strings"

// FileState is one vulnerability file's text and class (its State): what
// a boot showed, or what the model predicts. Text is "" where the model
// predicts the class but not the words.
type FileState struct {
	Text  string `json:"text"`
	Class State  `json:"class"`
}

// Now is the file as the machine shows it.
func (f FilePrediction) Now() FileState {
	return FileState{Text: strings.TrimSpace(f.From), Class: f.State}
}

// Predicted is the file's predicted text and class: a mitigated line given
// up reads vulnerable, one weakened or kept stays mitigated (To its text
// where the model knows it), a line not mitigated now takes the state it
// Becomes, or stays as it is (its text now where the model gives none).
func (f FilePrediction) Predicted() FileState {
	switch {
	case f.State == Mitigated && f.Class == ClassGivenUp:
		return FileState{Text: f.To, Class: Vulnerable}
	case f.State == Mitigated:
		return FileState{Text: f.To, Class: Mitigated}
	case f.Becomes != "" && f.Becomes != f.State:
		return FileState{Text: f.To, Class: f.Becomes}
	case f.To == "":
		// Nothing the line does reaches a line that is not mitigated.
		return f.Now()
	}
	return FileState{Text: f.To, Class: f.State}
}

// FileView is a file's prediction as advise's and decide's JSON show it:
// its name, the file now and predicted ({text, class}), the change in the
// replay's and the proof's words (FilePrediction.Change: given up,
// weakened, kept; becomes or stays a state) and the parameter responsible.
type FileView struct {
	Name   string    `json:"name"`
	From   FileState `json:"from"`
	To     FileState `json:"to"`
	Change string    `json:"change"`
	By     string    `json:"by,omitempty"`
}

// View is f as FileView.
func (f FilePrediction) View() FileView {
	return FileView{Name: f.Name, From: f.Now(), To: f.Predicted(), Change: f.Change(), By: f.By}
}

// Views are the views of files, in order.
func Views(files []FilePrediction) []FileView {
	out := make([]FileView, len(files))
	for i, f := range files {
		out[i] = f.View()
	}
	return out
}
