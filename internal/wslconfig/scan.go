package wslconfig

import (
	"fmt"
	"unicode/utf8"
)

// eofR is what the reader returns at the end of the text (WEOF).
const eofR rune = -1

// reader hands out characters the way the C runtime's fgetwc does for a
// file opened in text mode: CR LF comes out as one LF. It remembers the
// offsets so that the scanner can record where things are.
type reader struct {
	s    string
	pos  int  // offset of the next character
	prev int  // offset of the character last returned
	eof  bool // a read hit the end (feof)
}

func (r *reader) get() rune {
	r.prev = r.pos
	if r.pos >= len(r.s) {
		r.eof = true
		return eofR
	}
	if r.s[r.pos] == '\r' && r.pos+1 < len(r.s) && r.s[r.pos+1] == '\n' {
		r.pos += 2
		return '\n'
	}
	c, n := utf8.DecodeRuneInString(r.s[r.pos:])
	r.pos += n
	return c
}

// unget puts back the character last returned (ungetwc); putting back the
// end of the text does nothing.
func (r *reader) unget() { r.pos = r.prev }

func isHSpace(c rune) bool { return c == ' ' || c == '\t' }
func isAlpha(c rune) bool  { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c rune) bool  { return isAlpha(c) || c >= '0' && c <= '9' }

// foldName is the form of a name under which strcasecmp finds names equal
// (for names without NUL).
func foldName(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = lower(b[i])
	}
	return string(b)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func printable(c rune) string {
	switch c {
	case eofR:
		return "end of file"
	case '\n', '\r':
		return "end of line"
	}
	return fmt.Sprintf("%q", c)
}

// scanner holds the state of WSL's ParseConfigFile.
type scanner struct {
	f          *File
	r          *reader
	ch         rune
	line       int
	trailing   bool   // a '#' ended the last header or value
	keybuf     []byte // WSL's "key" buffer: section name, then "section.key"
	sectionLen int
	lineStart  int              // offset where the current line's scan began
	pending    *int             // lineEnd to fill when the trailing comment ends
	seen       map[nameKey]bool // names set so far

	// The section part of keybuf, converted once per change: a section
	// name can be long, and keys are many.
	secOK        bool
	secName      string // up to the first NUL
	secTruncated bool   // keybuf[:sectionLen] holds a NUL (WSL's C string ends there)
	secID        int
	secIDs       map[string]int // folded section name → id
}

// nameKey identifies a full key name as strcasecmp sees it.
type nameKey struct {
	section int    // id of the folded section name
	key     string // folded key name
}

// currentSection returns the section part of the key buffer as WSL's C string
// sees it, with its id.
func (s *scanner) currentSection() (name string, truncated bool, id int) {
	if !s.secOK {
		p := s.keybuf[:s.sectionLen]
		s.secTruncated = false
		for i, c := range p {
			if c == 0 {
				p, s.secTruncated = p[:i], true
				break
			}
		}
		s.secName = string(p)
		if s.secIDs == nil {
			s.secIDs = map[string]int{}
		}
		f := foldName(s.secName)
		id, ok := s.secIDs[f]
		if !ok {
			id = len(s.secIDs)
			s.secIDs[f] = id
		}
		s.secID, s.secOK = id, true
	}
	return s.secName, s.secTruncated, s.secID
}

type state int

const (
	stNewLine state = iota
	stInvalidLine
	stDone
)

// scan reads f.text with the state machine of WSL's ParseConfigFile (parse
// mode, CFG_SKIP_INVALID_LINES) and fills entries, sections and
// diagnostics. It is a re-implementation of the behaviour, kept state by
// state so that line numbers, sections after a bad header and the odd
// corners (a lone CR, a continuation, a comment after a header) come out as
// WSL sees them.
func scan(f *File) {
	s := &scanner{f: f, r: &reader{s: f.text}}
	st := stNewLine
	for st != stDone {
		if st == stInvalidLine {
			for s.ch != eofR && s.ch != '\n' {
				s.ch = s.r.get()
			}
		}
		if !s.trailing {
			s.line++
		}
		st = s.lineStartState()
	}
}

func (s *scanner) diag(refuse bool, format string, a ...any) {
	s.f.diags = append(s.f.diags, Diagnostic{Line: s.line, Msg: fmt.Sprintf(format, a...), Refuse: refuse})
}

// lineStartState is the loop after WSL's NewLine label: skip a pending
// comment, blank lines and leading blanks, then dispatch on the first
// character of a line.
func (s *scanner) lineStartState() state {
	r := s.r
	for {
		if s.ch == '#' {
			for {
				s.ch = r.get()
				if s.ch == '\r' {
					s.ch = r.get()
				}
				if s.ch == '\n' {
					s.line++
				}
				if s.ch == '\n' || s.ch == eofR {
					break
				}
			}
			s.trailing = false
			if s.pending != nil {
				*s.pending = r.pos
				s.pending = nil
			}
		}
		if r.eof {
			return stDone
		}
		s.lineStart = r.pos
		for s.ch = r.get(); isHSpace(s.ch); s.ch = r.get() {
		}
		switch {
		case s.ch == eofR:
		case s.ch == '\r':
			if r.get() == '\n' {
				s.line++
			} else {
				r.unget()
			}
		case s.ch == '\n':
			s.line++
		case s.ch == '#':
		case s.ch == '[':
			return s.section()
		case !isAlpha(s.ch):
			s.diag(false, "WSL skips this line: a key must start with a letter, not %s (only # starts a comment)", printable(s.ch))
			return stInvalidLine
		default:
			return s.keyValue()
		}
	}
}

// section parses "[name]" after the '['.
func (s *scanner) section() state {
	r := s.r
	s.ch = r.get()
	if !isAlpha(s.ch) {
		s.diag(true, "WSL rejects this section header (a name starts with a letter, not %s) and files the keys after it under the section before; fix the header", printable(s.ch))
		return stInvalidLine
	}
	s.keybuf = s.keybuf[:0]
	s.secOK = false
	for {
		s.keybuf = append(s.keybuf, byte(s.ch))
		s.ch = r.get()
		if !isAlnum(s.ch) {
			break
		}
	}
	if s.ch != ']' {
		s.diag(true, "WSL rejects this section header (expected ']' but found %s; names are letters and digits) and files the keys after it under the section before; fix the header", printable(s.ch))
		return stInvalidLine
	}
	for s.ch = r.get(); isHSpace(s.ch); s.ch = r.get() {
	}
	switch s.ch {
	case eofR, '\n', '\r', '#':
	default:
		s.diag(true, "WSL rejects this section header (%s after ']') and files the keys after it under the section before; fix the header", printable(s.ch))
		return stInvalidLine
	}
	s.sectionLen = len(s.keybuf)
	s.secOK = false
	sec := section{name: string(s.keybuf), line: s.line, lineEnd: r.pos}
	s.f.sections = append(s.f.sections, sec)
	s.endAt(&s.f.sections[len(s.f.sections)-1].lineEnd)
	return stNewLine
}

// endAt records the end of the current line in *p: now, or when the
// trailing comment has been skipped.
func (s *scanner) endAt(p *int) {
	switch s.ch {
	case '#':
		s.trailing = true
		s.pending = p
	case eofR:
		*p = len(s.r.s)
	default:
		*p = s.r.pos
	}
}

// keyValue parses "key = value"; the key's first letter is in s.ch.
func (s *scanner) keyValue() state {
	r := s.r
	startLine, lineStart := s.line, s.lineStart
	// key.resize(sectionLength): WSL pads with NULs when the buffer is shorter.
	if len(s.keybuf) < s.sectionLen {
		s.keybuf = append(s.keybuf, make([]byte, s.sectionLen-len(s.keybuf))...)
		s.secOK = false
	}
	s.keybuf = s.keybuf[:s.sectionLen]
	if len(s.keybuf) > 0 {
		s.keybuf = append(s.keybuf, '.')
	}
	keyStart := len(s.keybuf)
	for {
		s.keybuf = append(s.keybuf, byte(s.ch))
		s.ch = r.get()
		if !isAlnum(s.ch) {
			break
		}
	}
	for isHSpace(s.ch) {
		s.ch = r.get()
	}
	if s.ch != '=' {
		s.diag(false, "WSL skips this line: expected '=' after the key %q but found %s (key names are letters and digits)", s.keybuf[keyStart:], printable(s.ch))
		return stInvalidLine
	}
	for s.ch = r.get(); isHSpace(s.ch); s.ch = r.get() {
	}
	valStart := r.prev
	if s.ch == eofR {
		valStart = len(r.s)
	}
	valEnd := valStart
	var value []rune
	trimmed := 0
	inQuote := false
loop:
	for s.ch != eofR && s.ch != '\n' && s.ch != '\r' {
		switch s.ch {
		case '"':
			inQuote = !inQuote
		case '\\':
			c2 := r.get()
			switch c2 {
			case '\\', '"':
				value = append(value, c2)
			case 'b':
				value = append(value, '\b')
			case 'n':
				value = append(value, '\n')
			case 't':
				value = append(value, '\t')
			case '\n':
				s.line++ // continuation
			default:
				s.diag(true, "invalid escape \\%s: WSL skips the whole line; write a backslash as \\\\ (C:\\\\Users\\\\me), a quote as \\\"", escPrintable(c2))
				return stInvalidLine
			}
		case '#':
			if !inQuote {
				s.trailing = true
				break loop
			}
			value = append(value, s.ch)
		default:
			value = append(value, s.ch)
		}
		if !isHSpace(s.ch) {
			trimmed = len(value)
			valEnd = r.pos
		}
		s.ch = r.get()
	}
	if inQuote {
		s.diag(true, "a double quote is not closed: WSL skips the whole line; close it, or write a literal quote as \\\"")
		s.trailing = false
		return stInvalidLine
	}
	secName, truncated, secID := s.currentSection()
	e := Entry{
		Line:      startLine,
		Section:   secName,
		Key:       string(s.keybuf[keyStart:]),
		truncated: truncated,
		Value:     string(value[:trimmed]),
		Raw:       r.s[valStart:valEnd],
		lineStart: lineStart,
		valStart:  valStart,
		valEnd:    valEnd,
	}
	if s.seen == nil {
		s.seen = map[nameKey]bool{}
	}
	nk := nameKey{secID, foldName(e.Key)}
	switch {
	case truncated:
		// WSL's C string ends inside the section: the name is the
		// section part alone, as for a key before any section.
		nk = nameKey{-1, foldName(secName)}
	case s.sectionLen == 0:
		nk.section = -1
	}
	e.Shadowed = s.seen[nk]
	s.seen[nk] = true
	s.f.entries = append(s.f.entries, e)
	if s.trailing {
		s.pending = &s.f.entries[len(s.f.entries)-1].lineEnd
	} else if s.ch == eofR {
		s.f.entries[len(s.f.entries)-1].lineEnd = len(r.s)
		s.f.entries[len(s.f.entries)-1].atEOF = true
	} else {
		s.f.entries[len(s.f.entries)-1].lineEnd = r.pos
	}
	return stNewLine
}

func escPrintable(c rune) string {
	switch c {
	case eofR:
		return " at the end of the file"
	case '\r':
		return " before a lone CR"
	}
	return string(c)
}
