package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNoteText(t *testing.T) {
	long := "warning: the machine was busy when the run started (load average 2.56 on 2 CPUs): other work shared the CPUs, so these figures are slower and noisier than the mitigations make them; quiet the machine and run again"
	for _, tc := range []struct {
		name, note string
		width      int
		want       string
	}{
		{"short stays one line", "3 boots", 80, "sectax: 3 boots\n"},
		{"long wraps at spaces, later lines indented", long, 60,
			"sectax: warning: the machine was busy when the run started\n" +
				"  (load average 2.56 on 2 CPUs): other work shared the CPUs,\n" +
				"  so these figures are slower and noisier than the\n" +
				"  mitigations make them; quiet the machine and run again\n"},
		{"a backquoted command is never broken", "no runs stored in /tmp/x.db; run `sectax run --label on` first", 40,
			"sectax: no runs stored in /tmp/x.db; run\n  `sectax run --label on` first\n"},
		{"a line break keeps its indent", "reboot into configuration off by hand\n  the kernel command line must be: BOOT_IMAGE=/vmlinuz mitigations=off quiet", 40,
			"sectax: reboot into configuration off by\n  hand\n  the kernel command line must be:\n    BOOT_IMAGE=/vmlinuz mitigations=off\n    quiet\n"},
		{"escaped foreign text stays whole", "label \x1b[31mred\x1b[0m of a stored run is shown here and it is long enough to wrap", 30,
			"sectax: label \\x1b[31mred\\x1b[0m of a stored run is shown here and it is long enough to wrap\n"},
		{"no width is the default", "x", 0, "sectax: x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NoteText(tc.note, tc.width); got != tc.want {
				t.Errorf("NoteText(%q, %d) =\n%s\nwant\n%s", tc.note, tc.width, got, tc.want)
			}
		})
	}
}

// FuzzNoteText: whatever the note, the text ends with a newline and holds
// no NUL; for a note of plain text, a line wider than the width is one
// word (a backquoted span counted as one).
func FuzzNoteText(f *testing.F) {
	f.Add("no runs stored in /tmp/x.db; run `sectax run --label on` first", 30)
	f.Add("a\nb `c d", 5)
	f.Fuzz(func(t *testing.T, note string, width int) {
		width = 1 + (width%200+200)%200
		got := NoteText(note, width)
		if !strings.HasSuffix(got, "\n") || strings.Contains(got, "\x00") {
			t.Fatalf("NoteText(%q, %d) = %q", note, width, got)
		}
		if strings.ContainsAny(note, "\x00") || termSafe(strings.ReplaceAll(note, "\n", " ")) != strings.ReplaceAll(note, "\n", " ") {
			return
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if utf8.RuneCountInString(l) <= width {
				continue
			}
			if f := strings.Fields(keepQuoted(strings.TrimPrefix(l, "sectax: "))); len(f) > 1 {
				t.Errorf("NoteText(%q, %d): line %q is wider than the width and holds %d words", note, width, l, len(f))
			}
		}
	})
}
