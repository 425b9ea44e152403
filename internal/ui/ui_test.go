package ui

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestRecorderKeepsWhatItWasTold(t *testing.T) {
	refused := errors.New("no")
	r := &Recorder{Answer: refused}
	var p Printer = r
	p.Notef("%d boots", 3)
	p.Status("boot 1 of 3")
	p.Status("")
	if err := p.Confirm("this run is about 2 h"); !errors.Is(err, refused) {
		t.Fatalf("Confirm = %v, want the Answer", err)
	}
	if got := r.Notes(); !slices.Equal(got, []string{"3 boots"}) {
		t.Errorf("Notes = %q", got)
	}
	if got := r.Statuses(); !slices.Equal(got, []string{"boot 1 of 3", ""}) {
		t.Errorf("Statuses = %q", got)
	}
	if got := r.Asked(); !slices.Equal(got, []string{"this run is about 2 h"}) {
		t.Errorf("Asked = %q", got)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := &Recorder{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Notef("note %d", i)
			r.Status("s")
		}()
	}
	wg.Wait()
	if len(r.Notes()) != 8 || len(r.Statuses()) != 8 {
		t.Fatalf("lost lines: %d notes, %d statuses", len(r.Notes()), len(r.Statuses()))
	}
}

func TestOr(t *testing.T) {
	if _, ok := Or(nil).(Discard); !ok {
		t.Error("Or(nil) is not Discard")
	}
	r := &Recorder{}
	if Or(r) != Printer(r) {
		t.Error("Or(p) is not p")
	}
	if err := Or(nil).Confirm("x"); err != nil {
		t.Errorf("Discard.Confirm = %v, want nil (goes on without asking)", err)
	}
}

// speaker is a Speaker that is not a Printer.
type speaker struct{ r *Recorder }

func (s speaker) Notef(format string, a ...any) { s.r.Notef(format, a...) }
func (s speaker) Confirm(what string) error     { return s.r.Confirm(what) }

func TestNoStatus(t *testing.T) {
	r := &Recorder{}
	p := NoStatus(speaker{r})
	p.Notef("a %d", 1)
	p.Status("not shown")
	if !slices.Equal(r.Notes(), []string{"a 1"}) || len(r.Statuses()) != 0 {
		t.Errorf("notes %q, statuses %q", r.Notes(), r.Statuses())
	}
	if NoStatus(r) != Printer(r) {
		t.Error("a Printer is not kept as it is")
	}
	if _, ok := NoStatus(nil).(Discard); !ok {
		t.Error("NoStatus(nil) is not Discard")
	}
}
