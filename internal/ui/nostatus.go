package ui

// Speaker says notes and asks, but shows no status line (what a
// measuring printer was before it spoke Printer).
type Speaker interface {
	Notef(format string, a ...any)
	Confirm(what string) error
}

// NoStatus is p as a Printer whose status lines go nowhere; nil is
// Discard.
func NoStatus(p Speaker) Printer {
	if p == nil {
		return Discard{}
	}
	if pr, ok := p.(Printer); ok {
		return pr
	}
	return noStatus{p}
}

type noStatus struct{ Speaker }

func (noStatus) Status(string) {}
