package report

import "io"

// errWriter remembers the first write error so that the text renderer
// can write freely and report once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, nil
}

// TextWidth is the width of the writer it writes to (widthOf).
func (e *errWriter) TextWidth() int { return widthOf(e.w) }
