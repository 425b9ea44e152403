package exit

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

type own struct{}

func (own) Error() string  { return "own" }
func (own) ExitKind() Kind { return Unmet }

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want Kind
	}{
		{errors.New("plain"), Runtime},
		{Usagef("--x: %w", errors.New("bad")), Usage},
		{fmt.Errorf("wrapped: %w", Wrap(Usage, errors.New("bad"))), Usage},
		{fmt.Errorf("step: %w", own{}), Unmet},
		{fmt.Errorf("read: %w", context.Canceled), Interrupted},
		// The outermost kind wins: a command may say what a failure means.
		{Wrap(Runtime, Wrap(Usage, errors.New("inner"))), Runtime},
		{Wrap(Interrupted, context.Canceled), Interrupted},
		{New(Usage, "sentinel"), Usage},
	} {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("Of(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	if Wrap(Usage, nil) != nil {
		t.Error("Wrap(k, nil) is not nil")
	}
	sentinel := New(Usage, "the two sides are the same run")
	if err := fmt.Errorf("compare: %w", sentinel); !errors.Is(err, sentinel) || err.Error() != "compare: the two sides are the same run" {
		t.Errorf("sentinel lost: %v", err)
	}
}

// TestChoose: an accepted value passes; any other is a usage error in the
// one wording that names every accepted value.
func TestChoose(t *testing.T) {
	if err := Choose("--accel", "tcg", "kvm", "tcg", "auto"); err != nil {
		t.Errorf("accepted value: %v", err)
	}
	err := Choose("--accel", "xen", "kvm", "tcg", "auto")
	if Of(err) != Usage || err.Error() != `--accel "xen" is not accepted (accepted: kvm, tcg, auto)` {
		t.Errorf("got %v (%v)", err, Of(err))
	}
}

// TestInterruptedMessage: a cancelled command's message says it was
// interrupted, in words, and by which signal when the cause says.
func TestInterruptedMessage(t *testing.T) {
	sigint, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	sigterm, cancel2 := context.WithCancelCause(context.Background())
	cancel2(errors.New("terminated signal received"))
	plain, cancel3 := context.WithCancel(context.Background())
	cancel3()
	for _, c := range []struct {
		ctx       context.Context
		msg, want string
	}{
		{sigint, "context canceled", "interrupted (SIGINT)"},
		{sigterm, "run: context canceled", "run: interrupted (SIGTERM)"},
		{plain, "boot 2 of 3 interrupted", "boot 2 of 3 interrupted"},
		{plain, "read /proc: EOF", "interrupted: read /proc: EOF"},
	} {
		if got := InterruptedMessage(c.ctx, c.msg); got != c.want {
			t.Errorf("InterruptedMessage(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// TestOfCommand: once the command's context is cancelled, an error
// without a kind of its own is an interruption; one with a kind keeps it.
func TestOfCommand(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want Kind
	}{
		{live, errors.New("disk full"), Runtime},
		{done, errors.New("disk full"), Interrupted},
		{done, Wrap(Unmet, errors.New("boot did not verify")), Unmet},
		{done, Wrap(Usage, context.Canceled), Interrupted},
		{live, Usagef("bad flag"), Usage},
	} {
		if got := OfCommand(c.ctx, c.err); got != c.want {
			t.Errorf("OfCommand(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
