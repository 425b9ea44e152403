package workload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/proctest"
)

func TestCmdTrue(t *testing.T) {
	w := Cmd{}
	p := moreParams(t, w, map[string]string{"cmd": "true"})
	if err := w.Available(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Preflight(p); err != nil {
		t.Fatal(err)
	}
	s, err := w.Run(context.Background(), testEnv(t), p)
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, w, s, "user_s", "sys_s", "cpu_pct", "nvcsw", "nivcsw")
}

func TestCmdFalse(t *testing.T) {
	w := Cmd{}
	_, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"cmd": "false"}))
	if err == nil || !strings.Contains(err.Error(), "exited with status 1") {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		t.Fatalf("a failing command is not a usage error: %v", err)
	}
}

// A failure carries the tail of the command's standard error.
func TestCmdStderrTail(t *testing.T) {
	w := Cmd{}
	p := moreParams(t, w, map[string]string{"shell": "sh",
		"cmd": "for i in 1 2 3 4 5 6 7 8 9; do echo line$i >&2; done; exit 3"})
	_, err := w.Run(context.Background(), testEnv(t), p)
	if err == nil {
		t.Fatal("exit 3 succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "exited with status 3") || !strings.Contains(msg, "line4 | line5 | line6 | line7 | line8 | line9") ||
		strings.Contains(msg, "line3") || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want status 3 and the last six lines on one line", msg)
	}
}

func TestCmdWordsWithoutShell(t *testing.T) {
	// Without a shell, $HOME and ; are plain words passed to the program.
	out := filepath.Join(t.TempDir(), "args")
	w := Cmd{}
	p := moreParams(t, w, map[string]string{"cmd": `sh -c 'printf "%s|" "$@" > "$0"' ` + out + ` '$HOME' "a b" ;`})
	if _, err := w.Run(context.Background(), testEnv(t), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "$HOME|a b|;|"; got != want {
		t.Fatalf("argv %q, want %q", got, want)
	}
}

func TestCmdMissingProgram(t *testing.T) {
	w := Cmd{}
	for _, c := range []struct{ cmd, want string }{
		{"/nonexistent/bin/tool --flag", "/nonexistent/bin/tool"},
		{"sectax-no-such-tool-xyz arg", "sectax-no-such-tool-xyz"},
	} {
		p := moreParams(t, w, map[string]string{"cmd": c.cmd})
		assertUsage(t, w.Preflight(p), c.want)
		_, err := w.Run(context.Background(), testEnv(t), p)
		assertUsage(t, err, c.want)
	}
	p := moreParams(t, w, map[string]string{"cmd": "true", "prepare": "/nonexistent/clean"})
	assertUsage(t, w.Preflight(p), "/nonexistent/clean")
	assertUsage(t, w.Preflight(moreParams(t, w, map[string]string{"cmd": "echo 'open"})), "unterminated single quote")
}

func TestCmdWithoutCommand(t *testing.T) {
	w := Cmd{}
	p := moreParams(t, w, nil)
	if err := w.Available(p); err == nil || !strings.Contains(err.Error(), "--cmd") {
		t.Fatalf("Available = %v, want a hint at --cmd", err)
	}
	_, err := w.Run(context.Background(), testEnv(t), p)
	assertUsage(t, err, "--cmd")
}

// prepare runs before every repetition, and its failure fails it.
func TestCmdPrepare(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	w := Cmd{}
	p := moreParams(t, w, map[string]string{"prepare": "touch " + mark, "cmd": "rm " + mark})
	for i := 0; i < 2; i++ { // rm fails unless prepare ran again
		if _, err := w.Run(context.Background(), testEnv(t), p); err != nil {
			t.Fatalf("repetition %d: %v", i, err)
		}
	}
	p = moreParams(t, w, map[string]string{"prepare": "false", "cmd": "true"})
	if _, err := w.Run(context.Background(), testEnv(t), p); err == nil || !strings.HasPrefix(err.Error(), "prepare: ") {
		t.Fatalf("err = %v, want a prepare failure", err)
	}
}

// Cancelled mid-command: the command and its background job are gone.
func TestCmdCancelled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, fired := cancelWhen(t, func() bool {
		b, err := os.ReadFile(pidFile)
		return err == nil && strings.HasSuffix(string(b), "\n")
	})
	w := Cmd{}
	p := moreParams(t, w, map[string]string{"shell": "sh", "cmd": "sleep 30 & echo $$ > " + pidFile + "; wait"})
	_, err := w.Run(ctx, testEnv(t), p)
	if !fired.Load() || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v (cancelled: %v), want context.Canceled", err, fired.Load())
	}
	b, _ := os.ReadFile(pidFile)
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pgid)
	if kids := proctest.LiveChildren(os.Getpid()); len(kids) > 0 {
		t.Fatalf("children left: %v", kids)
	}
}

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"make -j16", []string{"make", "-j16"}},
		{"  a\t b \n c  ", []string{"a", "b", "c"}},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}},
		{`x'y'"z"w`, []string{"xyzw"}},
		{`'' ""`, []string{"", ""}},
		{`a\ b \'c`, []string{"a b", "'c"}},
		{`"a\"b\\c\$d\e"`, []string{`a"b\c$d\e`}},
		{`'a\b'`, []string{`a\b`}},
		{"a\\\nb", []string{"ab"}},
		{`$HOME ; | *`, []string{"$HOME", ";", "|", "*"}},
		{"", nil},
		{"   ", nil},
	} {
		got, err := splitWords(c.in)
		if err != nil {
			t.Errorf("splitWords(%q): %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("splitWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `a\`, `"a\"`} {
		if got, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q) = %q, want an error", bad, got)
		}
	}
}

// quoteWord quotes w for splitWords.
func quoteWord(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// FuzzSplitWords: no input panics, and the words of any input survive
// quoting and splitting again.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"make -j16", `a 'b c' "d\"e"`, `a\ b`, "x\\\ny", `'`, `"`, `\`, "", " \t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitWords(s)
		if err != nil {
			return
		}
		var q []string
		for _, w := range words {
			q = append(q, quoteWord(w))
		}
		again, err := splitWords(strings.Join(q, " "))
		if err != nil {
			t.Fatalf("re-split of %q: %v", q, err)
		}
		if !slices.Equal(words, again) {
			t.Fatalf("%q: words %q, after quoting %q", s, words, again)
		}
	})
}
