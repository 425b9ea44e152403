// Package wslconfig reads and edits %UserProfile%\.wslconfig, the file that
// configures the WSL 2 virtual machine, without losing a byte of it.
//
// The reader follows WSL's own parser
// (https://github.com/microsoft/WSL/blob/master/src/shared/configfile/configfile.cpp,
// called by the service with "skip invalid lines"): case-insensitive section
// and key names, `#` comments (also after a value, but not inside double
// quotes), double quotes removed from values, the escapes \\ \" \n \t \b and
// a backslash at the end of a line, and the first of duplicated keys wins.
// The file may be UTF-8 with or without a byte-order mark or UTF-16LE with a
// byte-order mark, with CRLF, LF or mixed line endings.
//
// A File keeps the decoded text and its encoding; Bytes of an untouched File
// are the bytes it was parsed from. Set and Unset change only the
// kernelCommandLine line of [wsl2] (adding the section or the key when
// missing) and return a new File in the same encoding and line endings.
// WriteFile replaces the file on disk atomically after a backup.
package wslconfig

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is the character encoding of a .wslconfig file.
type Encoding int

// The encodings WSL reads (it opens the file with _wfopen "rt,ccs=UTF-8").
const (
	UTF8    Encoding = iota // UTF-8 without byte-order mark
	UTF8BOM                 // UTF-8 with byte-order mark EF BB BF
	UTF16LE                 // UTF-16 little-endian with byte-order mark FF FE
)

// String names the encoding as a user would ("UTF-8 with BOM").
func (e Encoding) String() string {
	switch e {
	case UTF8BOM:
		return "UTF-8 with BOM"
	case UTF16LE:
		return "UTF-16LE with BOM"
	}
	return "UTF-8"
}

// LineError is an error tied to a line of the file (1-based).
type LineError struct {
	Line int
	Msg  string
}

// Error formats the error as "line N: message".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Diagnostic is a remark about one line: something WSL warns about and
// skips, or that sectax refuses to edit.
type Diagnostic struct {
	// Line is the 1-based line number, counted as WSL counts it.
	Line int `json:"line"`
	// Msg says what is wrong and what WSL does with it.
	Msg string `json:"message"`
	// Refuse is true when sectax will not edit a file with this problem.
	Refuse bool `json:"refuse,omitempty"`
}

// Entry is one key = value line that WSL accepts.
type Entry struct {
	// Line is the line the key is on (1-based).
	Line int `json:"line"`
	// Section and Key are as written (WSL compares them case-insensitively).
	Section string `json:"section"`
	Key     string `json:"key"`
	// Value is what WSL reads: quotes removed, escapes applied, outer
	// spaces trimmed.
	Value string `json:"value"`
	// Raw is the value as written in the file.
	Raw string `json:"raw"`
	// Shadowed is true when an earlier line already set the same key:
	// WSL ignores this one (the first wins).
	Shadowed bool `json:"shadowed,omitempty"`

	lineStart int  // offset of the start of the key's physical line
	valStart  int  // offset of the raw value
	valEnd    int  // offset just after the raw value's last non-blank character
	lineEnd   int  // offset after the line terminator (or a trailing comment's)
	atEOF     bool // the value ran to the end of the file (no terminator)
	truncated bool // WSL's name buffer held a NUL in the section part (after a bad header)
}

// Name is the full key name WSL matches, "section.key" (or "key" before any
// section).
func (e Entry) Name() string {
	switch {
	case e.truncated:
		return e.Section
	case e.Section == "":
		return e.Key
	}
	return e.Section + "." + e.Key
}

// Is reports whether the entry sets section.key, as WSL matches names.
func (e Entry) Is(section, key string) bool {
	return !e.truncated && foldEq(e.Section, section) && foldEq(e.Key, key)
}

// foldEq compares ASCII names case-insensitively, lengths first.
func foldEq(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// section is a header WSL accepted.
type section struct {
	name    string
	line    int
	lineEnd int // offset after the header line (and its trailing comment)
}

// File is a parsed .wslconfig: the text, its encoding, and what WSL reads
// from it.
type File struct {
	enc      Encoding
	text     string
	entries  []Entry
	sections []section
	diags    []Diagnostic
}

// MaxSize is the largest file sectax reads. Real .wslconfig files are a
// few hundred bytes; the limit keeps a wrong --path (a disk image, a log)
// from being read whole, and bounds WSL's parsing, which is quadratic in
// the length of a section name.
const MaxSize = 64 << 10

// SizeError says the file is larger than MaxSize.
type SizeError struct{ Size int64 }

// Error says how large the file is and what the limit is.
func (e *SizeError) Error() string {
	return fmt.Sprintf("the file has %d bytes or more; a .wslconfig is a few hundred bytes and sectax reads at most %d KiB: is it the right file?", e.Size, MaxSize>>10)
}

// Parse decodes data and reads it the way WSL does. It fails only when WSL
// could not read the file as text at all: an encoding WSL does not read
// (UTF-16BE, an ANSI code page, UTF-16 without BOM) or binary data. Lines
// that WSL skips are kept and reported by Diagnostics.
func Parse(data []byte) (*File, error) {
	if len(data) > MaxSize {
		return nil, &SizeError{int64(len(data))}
	}
	enc, text, err := decode(data)
	if err != nil {
		return nil, err
	}
	return parseText(enc, text), nil
}

func parseText(enc Encoding, text string) *File {
	f := &File{enc: enc, text: text}
	scan(f)
	return f
}

// Encoding is the file's encoding; edits keep it.
func (f *File) Encoding() Encoding { return f.enc }

// Text is the decoded content (UTF-8, without byte-order mark).
func (f *File) Text() string { return f.text }

// Bytes encodes the file in its encoding. For a File from Parse that was
// not edited these are the bytes it was parsed from.
func (f *File) Bytes() []byte { return encode(f.enc, f.text) }

// Entries are the key = value lines WSL accepts, in file order.
func (f *File) Entries() []Entry { return append([]Entry(nil), f.entries...) }

// Diagnostics are the lines WSL warns about and skips, and the lines that
// make sectax refuse to edit, in file order.
func (f *File) Diagnostics() []Diagnostic { return append([]Diagnostic(nil), f.diags...) }

// LineEndings describes the line terminators: "CRLF", "LF", "mixed" or
// "none" (a single line without terminator, or an empty file).
func (f *File) LineEndings() string {
	crlf, lf, cr := countEOL(f.text)
	switch {
	case crlf+lf+cr == 0:
		return "none"
	case crlf > 0 && lf == 0 && cr == 0:
		return "CRLF"
	case lf > 0 && crlf == 0 && cr == 0:
		return "LF"
	case cr > 0 && crlf == 0 && lf == 0:
		return "CR"
	}
	return "mixed"
}

func countEOL(s string) (crlf, lf, cr int) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				crlf++
				i++
			} else {
				cr++
			}
		case '\n':
			lf++
		}
	}
	return
}

// eol is the terminator for new lines: the file's most common one, CRLF
// for a file without any (what Notepad writes).
func (f *File) eol() string {
	crlf, lf, _ := countEOL(f.text)
	if lf > crlf {
		return "\n"
	}
	return "\r\n"
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

func decode(data []byte) (Encoding, string, error) {
	enc := UTF8
	var text string
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		enc = UTF8BOM
		data = data[len(bomUTF8):]
		fallthrough
	case !bytes.HasPrefix(data, bomUTF16LE) && !bytes.HasPrefix(data, bomUTF16BE):
		if !utf8.Valid(data) {
			off := 0
			for off < len(data) {
				r, n := utf8.DecodeRune(data[off:])
				if r == utf8.RuneError && n <= 1 {
					break
				}
				off += n
			}
			line := 1 + bytes.Count(data[:off], []byte{'\n'})
			if nul := bytes.IndexByte(data, 0); nul >= 0 && nul < off+2 {
				return 0, "", &LineError{line, "binary data or UTF-16 without a byte-order mark: WSL reads .wslconfig as UTF-8 (or UTF-16LE with BOM); re-save it as UTF-8 in Notepad"}
			}
			return 0, "", &LineError{line, fmt.Sprintf("byte 0x%02X is not UTF-8 (a Windows ANSI code page?): WSL reads .wslconfig as UTF-8; re-save it as UTF-8 in Notepad", data[off])}
		}
		text = string(data)
	case bytes.HasPrefix(data, bomUTF16BE):
		return 0, "", &LineError{1, "the file is UTF-16BE (big-endian), which WSL does not read; re-save it as UTF-8 in Notepad"}
	default:
		enc = UTF16LE
		data = data[len(bomUTF16LE):]
		if len(data)%2 != 0 {
			return 0, "", &LineError{1 + countUTF16Lines(data), "UTF-16LE file with an odd number of bytes (truncated or binary data)"}
		}
		units := make([]uint16, len(data)/2)
		for i := range units {
			units[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
		}
		var sb strings.Builder
		line := 1
		for i := 0; i < len(units); i++ {
			u := units[i]
			switch {
			case utf16.IsSurrogate(rune(u)):
				if u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
					sb.WriteRune(utf16.DecodeRune(rune(u), rune(units[i+1])))
					i++
					continue
				}
				return 0, "", &LineError{line, "UTF-16LE text with an unpaired surrogate (binary data?)"}
			case u == '\n':
				line++
			}
			sb.WriteRune(rune(u))
		}
		text = sb.String()
	}
	if err := checkBinary(text); err != nil {
		return 0, "", err
	}
	return enc, text, nil
}

func countUTF16Lines(data []byte) int {
	n := 0
	for i := 0; i+1 < len(data); i += 2 {
		if data[i] == '\n' && data[i+1] == 0 {
			n++
		}
	}
	return n
}

// checkBinary refuses control characters other than tab, LF and CR: NUL
// bytes, Ctrl-Z and the like mean binary data or the wrong encoding.
func checkBinary(text string) error {
	line := 1
	for _, r := range text {
		switch {
		case r == '\n':
			line++
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7F:
			hint := "binary data"
			if r == 0 {
				hint = "binary data or UTF-16 without a byte-order mark"
			}
			return &LineError{line, fmt.Sprintf("control character U+%04X (%s): WSL reads .wslconfig as text; remove it or re-save the file as UTF-8 in Notepad", r, hint)}
		}
	}
	return nil
}

func encode(enc Encoding, text string) []byte {
	switch enc {
	case UTF8BOM:
		return append(append([]byte(nil), bomUTF8...), text...)
	case UTF16LE:
		out := append([]byte(nil), bomUTF16LE...)
		for _, u := range utf16.Encode([]rune(text)) {
			out = append(out, byte(u), byte(u>>8))
		}
		return out
	}
	return []byte(text)
}
