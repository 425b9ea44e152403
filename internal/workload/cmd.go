package workload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Cmd times any command the way hyperfine does: no shell unless asked
// (shell=sh), an optional untimed prepare command before every repetition,
// and the metrics of go-build. `sectax run --cmd 'make -j16' --prepare
// 'make clean'` is sugar for --only cmd --param cmd.cmd=… --param
// cmd.prepare=….
type Cmd struct{}

// CmdID is the cmd workload's id: 'sectax run --cmd' adds it to the plan.
const CmdID = "cmd"

// The keys of the cmd workload's parameters, for the --cmd and --prepare
// flags of internal/cli (each flag is named after the parameter it sets).
const (
	CmdParamCmd     = "cmd"
	CmdParamPrepare = "prepare"
	CmdParamShell   = "shell"
)

// Info implements Workload.
func (Cmd) Info() Info {
	return Info{
		ID:    CmdID,
		Title: "any command, timed like hyperfine (sectax run --cmd '…')",
		Stresses: Stress{Varies: true, Note: "whatever the command does; system time and context switches show " +
			"how much of it is kernel work that mitigations tax",
			Pays: "whatever the command does in the kernel"},
		Params: []ParamSpec{
			{Key: CmdParamCmd, Help: "the command to time, split into words like a shell does (quotes, backslashes; no expansion)",
				Default: "", Free: true},
			{Key: CmdParamPrepare, Help: "command run before every repetition, untimed (e.g. make clean)",
				Default: "", Free: true},
			{Key: CmdParamShell, Help: "none: run the words directly; sh or bash: run the text of cmd and of prepare with SHELL -c",
				Default: "none", Choices: []string{"none", "sh", "bash"}},
		},
		Metrics: rusageMetrics,
	}
}

// Cost implements Estimator: what a command costs is not known before it
// runs (0): the estimate comes from past runs of the same command, or is
// not given.
func (Cmd) Cost(Params) time.Duration { return 0 }

// Available implements Availability: without a command there is nothing
// to run, so suites skip the workload.
func (Cmd) Available(p Params) error {
	if strings.TrimSpace(p.Str(CmdParamCmd)) == "" {
		return errors.New("needs a command to time: sectax run --cmd 'make -j16'")
	}
	return nil
}

// Preflight implements Preflighter: a command that cannot be parsed or
// whose program does not exist is a usage error naming it.
func (Cmd) Preflight(p Params) error {
	if _, err := cmdChild(p, CmdParamCmd); err != nil {
		return err
	}
	if p.Str(CmdParamPrepare) != "" {
		if _, err := cmdChild(p, CmdParamPrepare); err != nil {
			return err
		}
	}
	return nil
}

// cmdChild resolves the command held by parameter key.
func cmdChild(p Params, key string) (timedChild, error) {
	text := p.Str(key)
	what := "cmd." + key
	if shell := p.Str(CmdParamShell); shell != "" && shell != "none" {
		path, err := lookProgram("cmd.shell", shell)
		if err != nil {
			return timedChild{}, err
		}
		return timedChild{path: path, argv: []string{shell, "-c", text}}, nil
	}
	words, err := splitWords(text)
	if err != nil {
		return timedChild{}, &UsageError{Msg: fmt.Sprintf("%s=%q: %v", what, text, err)}
	}
	if len(words) == 0 {
		return timedChild{}, &UsageError{Msg: fmt.Sprintf("%s is empty: give a command, e.g. --param %s='make -j16'", what, what)}
	}
	path, err := lookProgram(what, words[0])
	if err != nil {
		return timedChild{}, err
	}
	return timedChild{path: path, argv: words}, nil
}

// readersSettled makes the first repetition of a timed command in this
// process wait for the programs reading sectax's output (awaitReaders).
var readersSettled sync.Once

// Run implements Workload: the prepare command (untimed), then the command.
func (c Cmd) Run(ctx context.Context, _ Env, p Params) (s Sample, err error) {
	if err := c.Available(p); err != nil {
		return Sample{}, &UsageError{Msg: "cmd: " + err.Error()}
	}
	var note string
	readersSettled.Do(func() { note = awaitReaders(ctx, []*os.File{os.Stdout, os.Stderr}, readerSettle) })
	if note != "" {
		defer func() { s.Warnings = append(s.Warnings, note) }()
	}
	if p.Str(CmdParamPrepare) != "" {
		prep, err := cmdChild(p, CmdParamPrepare)
		if err != nil {
			return Sample{}, err
		}
		if _, err := runTimed(ctx, prep); err != nil {
			if ctx.Err() != nil {
				return Sample{}, ctx.Err()
			}
			return Sample{}, fmt.Errorf("prepare: %w", err)
		}
	}
	child, err := cmdChild(p, CmdParamCmd)
	if err != nil {
		return Sample{}, err
	}
	return runTimed(ctx, child)
}

// splitWords splits s into words the way a POSIX shell does without any
// expansion: blanks separate words; 'single quotes' keep everything
// literally; "double quotes" keep everything but \" \\ \$ \` and
// backslash-newline; outside quotes a backslash keeps the next character.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash (escape it as \\\\)")
			}
			i++
			if s[i] != '\n' { // backslash-newline joins lines
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote (close it with ')")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			closed := false
			for i++; i < len(s); i++ {
				d := s[i]
				if d == '"' {
					closed = true
					break
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(d)
			}
			if !closed {
				return nil, errors.New(`unterminated double quote (close it with ")`)
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
