package decide

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/testutil"
)

// TestOneAnswer: over every fake root of testdata, each option decide
// offers gives the same given-up and weakened sets as advise --target
// <the same line> (issue 37: one answer per question).
func TestOneAnswer(t *testing.T) {
	dirs := map[string]string{}
	for _, l := range testutil.Layers(t, testutil.AdviseRoots()) {
		dirs[l.Name] = testutil.AdviseRoot(t, l.Name)
	}
	sys := testutil.SysinfoRoot("")
	ents, err := os.ReadDir(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(sys, e.Name(), "proc")); e.IsDir() && err == nil {
			dirs["sys:"+e.Name()] = filepath.Join(sys, e.Name())
		}
	}
	checked := 0
	for name, dir := range dirs {
		in := inputAt(t, dir)
		if slices.ContainsFunc(mitigation.Classify(mitigation.ParseCmdline(in.Snap.Cmdline.Raw).Params).Params, func(r mitigation.Relevant) bool {
			return r.Kind == mitigation.KindGlobal || r.Kind == mitigation.KindBug
		}) {
			// decide's options are relative to the kernel's defaults,
			// advise's to the running line: they answer the same question
			// where the running line sets no mitigation parameter.
			continue
		}
		d, err := Decide(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, o := range d.Options {
			if o.Cmdline == "" || o.SameAs != "" {
				continue
			}
			tg, err := mitigation.ParseTarget(o.Cmdline)
			if err != nil {
				t.Fatalf("%s %s: %v", name, o.Name, err)
			}
			a := advise.For(in.Snap, in.Platform, tg, in.KB)
			if len(a.Changes) == 0 {
				continue // already configured (a pending boot): advise has nothing to change
			}
			gu, wk := lossNames(a.GivenUp), lossNames(a.Weakened)
			if !slices.Equal(gu, o.GivesUp) || !slices.Equal(wk, o.Weakened) {
				t.Errorf("%s, %s (%s): decide gives up %v, weakens %v; advise --target gives up %v, weakens %v", name, o.Name, o.Cmdline, o.GivesUp, o.Weakened, gu, wk)
			}
			// Every file, predicted the same way (issue 46): the option's
			// files give its own sets, and advise --target's files are the
			// same changes.
			if fs := proven.SetsOf(o.Files); !slices.Equal(sorted(fs.GivesUp), o.GivesUp) || !slices.Equal(sorted(fs.Weakened), o.Weakened) {
				t.Errorf("%s, %s: the option's files give up %v, weaken %v; its sets %v, %v", name, o.Name, fs.GivesUp, fs.Weakened, o.GivesUp, o.Weakened)
			}
			if len(a.Files) != len(o.Files) {
				t.Errorf("%s, %s: advise predicts %d files, decide %d", name, o.Name, len(a.Files), len(o.Files))
			}
			for i := range min(len(a.Files), len(o.Files)) {
				if af, of := a.Files[i], o.Files[i]; af != of {
					t.Errorf("%s, %s: %s advise %+v, decide %+v", name, o.Name, af.Name, af, of)
				}
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d options compared", checked)
	}
}

func sorted(vs []string) []string {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	return vs
}

func lossNames(ls []advise.Loss) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	slices.Sort(out)
	return out
}

// TestNoVulnerabilities: without the vulnerability folder decide says it
// cannot tell and recommends nothing, even with --protect.
func TestNoVulnerabilities(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, s := range map[string]string{"proc/cmdline": "root=/dev/sda1\n", "proc/version": "Linux version 6.18.3\n"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := inputAt(t, dir)
	in.Protect = []string{"user_kernel"}
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Recommended != nil || !d.Facts.Unreadable || len(d.Notes) == 0 || len(d.Steps) != 0 {
		t.Errorf("no vulnerability files: recommended %v, unreadable %v, notes %q", d.Recommended, d.Facts.Unreadable, d.Notes)
	}
	// No option is "same as keep-all": what each gives up is unseen.
	for _, o := range d.Options {
		if o.Name == KeepAll {
			continue
		}
		if o.SameAs != "" || !o.Unseen {
			t.Errorf("no vulnerability files: option %s is same as %q, unseen %v", o.Name, o.SameAs, o.Unseen)
		}
		if o.Name == Off && o.Cmdline != "mitigations=off" {
			t.Errorf("no vulnerability files: off's line is %q", o.Cmdline)
		}
	}
}

// TestGRUBAllEntriesOff: with mitigations=off in GRUB_CMDLINE_LINUX on a
// 6.18 kernel (read before the _DEFAULT line an option edits), no option
// turns a vector back on, keep-all is not the running line, and a note says
// why (kernel/cpu.c mitigations_parse_cmdline only ever clears vectors).
func TestGRUBAllEntriesOff(t *testing.T) {
	in := input(t, "host-6.18")
	in.Platform.AllEntries = "mitigations=off"
	in.Snap.Cmdline.Raw = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mitigations=off quiet mitigations=auto"
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Facts.FixedOff || !slices.ContainsFunc(d.Facts.Notes, func(n string) bool { return strings.Contains(n, "GRUB_CMDLINE_LINUX") }) {
		t.Errorf("fixed off %v, notes %q", d.Facts.FixedOff, d.Facts.Notes)
	}
	for _, o := range d.Options {
		if len(o.Restores) > 0 || o.Name == KeepAll && o.Current {
			t.Errorf("option %s restores %v (current %v) past GRUB_CMDLINE_LINUX's mitigations=off", o.Name, o.Restores, o.Current)
		}
	}
	// Without it the running line's auto after off drops every vector
	// (6.17+), which keep-all restores: the note that the running line
	// already drops them.
	in = input(t, "host-6.18")
	in.Snap.Cmdline.Raw = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mitigations=auto,no_guest_host mitigations=auto"
	d, err = Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Facts.FixedOff || !slices.Equal(d.Facts.RunningDrops, []string{"guest_host"}) {
		t.Errorf("running drops %v (fixed off %v), want [guest_host]", d.Facts.RunningDrops, d.Facts.FixedOff)
	}
}
