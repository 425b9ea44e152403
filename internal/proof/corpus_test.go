package proof

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm/vmtest"
)

// The corpus's command lines cover what the brief of issue 37 names: every
// per-bug value the model has a rule for, alone and after mitigations=off,
// and no KVM module parameter (no KVM in the guest).
func TestCorpusBugLines(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	lines := CorpusBugLines(kb)
	for _, want := range []string{
		"spectre_v2=retpoline", "mitigations=off spectre_v2=retpoline", "retbleed=stuff", "spec_rstack_overflow=ibpb",
		"indirect_target_selection=on", "mitigations=off indirect_target_selection=on", "vmscape=ibpb", "mitigations=off vmscape=force",
		"nopti", "nospectre_v2", "mitigations=off tsa=user",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("CorpusBugLines lacks %q", want)
		}
	}
	if slices.Contains(lines, "mitigations=off nospectre_v2") {
		t.Error("CorpusBugLines boots an off switch after mitigations=off, which says nothing new")
	}
	for _, l := range lines {
		if strings.Contains(l, "kvm") || strings.Contains(l, "no_rfi_flush") {
			t.Errorf("CorpusBugLines has %q, which an x86 guest without KVM does not parse", l)
		}
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(lines)))); n != len(lines) {
		t.Errorf("CorpusBugLines repeats lines: %d distinct of %d", n, len(lines))
	}
	// Every value alone comes before the lines after mitigations=off, and
	// the first lines are one value of each parameter in turn.
	firstOff := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "mitigations=off ") })
	if firstOff < 0 || slices.ContainsFunc(lines[firstOff:], func(l string) bool { return !strings.HasPrefix(l, "mitigations=off ") }) {
		t.Errorf("a line alone comes after the first line after mitigations=off: %q", lines)
	}
	key := func(l string) string { k, _, _ := strings.Cut(l, "="); return k }
	if key(lines[0]) == key(lines[1]) || key(lines[1]) == key(lines[2]) {
		t.Errorf("the first lines do not take one parameter each: %q", lines[:3])
	}
}

// decide's options are in the kernel's own syntax: the attack vectors on
// 7.2, the per-bug parameters on 6.1.
func TestCorpusLines(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"meltdown":                  "Mitigation: PTI",
		"spectre_v2":                "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline",
		"mds":                       "Mitigation: Clear CPU buffers; SMT vulnerable",
		"l1tf":                      "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable",
		"retbleed":                  "Mitigation: IBRS",
		"indirect_target_selection": "Mitigation: Aligned branch/return thunks",
		"spectre_v1":                "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
	}
	o := mitigation.Observation{Release: "7.2.13+deb14-amd64", Arch: "x86", Vendor: "GenuineIntel", Family: "6", Platform: "vm", Files: files}
	got := CorpusLines(kb, o.Machine())
	if !slices.Contains(got, "mitigations=auto,no_guest_host,no_guest_guest") {
		t.Errorf("7.2: %q, want decide's no-guest in the vector syntax", got)
	}
	o.Release = "6.1.0-57-amd64"
	for _, l := range CorpusLines(kb, o.Machine()) {
		if strings.Contains(l, "no_guest") {
			t.Errorf("6.1: %q in the vector syntax, which 6.1 does not parse", l)
		}
	}
}

// TestFetchCorpusSourcesListNoFollow: corpus fetch DIR writes
// DIR/sources.list as a new file renamed into place: a link planted at
// that name is replaced, and the file it points to is left as it was.
func TestFetchCorpusSourcesListNoFollow(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "sources.list")
	if err := os.Symlink(victim, list); err != nil {
		t.Fatal(err)
	}
	// A cancelled context: the list is written, apt is never run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	said := &ui.Recorder{}
	if _, err := FetchCorpusKernels(ctx, dir, "http://deb.debian.org/debian", said); err == nil {
		t.Fatal("a cancelled fetch succeeded")
	}
	if notes := said.Notes(); len(notes) != 1 || !strings.HasPrefix(notes[0], "apt-get update with "+list) {
		t.Errorf("said %q, want the apt-get update with its own list", notes)
	}
	if data, _ := os.ReadFile(victim); string(data) != "mine\n" {
		t.Errorf("the link's target was written: %q", data)
	}
	fi, err := os.Lstat(list)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("sources.list: %v, %v, want a regular file", fi, err)
	}
	if data, _ := os.ReadFile(list); !strings.Contains(string(data), "deb [signed-by=") {
		t.Errorf("sources.list: %q", data)
	}
}

// TestBootCorpusReadsPrevious: the corpus as it was is read from the file
// the caller opened (Previous), not by its name again: a name that is now
// a FIFO is never opened.
func TestBootCorpusReadsPrevious(t *testing.T) {
	exe := vmtest.StaticSelf(t)
	out := filepath.Join(t.TempDir(), "boots.jsonl.gz")
	if err := unix.Mkfifo(out, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := BootCorpus(context.Background(), CorpusRequest{Out: out, Previous: strings.NewReader("not gzip"), Exe: exe})
	if err == nil || !strings.Contains(err.Error(), out) {
		t.Errorf("BootCorpus: %v, want the previous corpus refused", err)
	}
}

// A topology other than one or two threads per core of the two vCPUs is
// refused before anything boots, naming the flag.
func TestBootCorpusThreads(t *testing.T) {
	exe := vmtest.StaticSelf(t)
	out := filepath.Join(t.TempDir(), "boots.jsonl.gz")
	n, err := BootCorpus(context.Background(), CorpusRequest{Out: out, Threads: []int{2, 4}, Exe: exe})
	if n != 0 || err == nil || !strings.Contains(err.Error(), "--threads 4") {
		t.Errorf("BootCorpus with 4 threads: %d, %v", n, err)
	}
	if k1, k2 := CorpusKey("img", "EPYC-v1", 1, "nosmt"), CorpusKey("img", "EPYC-v1", 2, "nosmt"); k1 == k2 {
		t.Errorf("the corpus key names no topology: %q", k1)
	}
}
