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
