package cli

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/vm"
)

// fakeImage writes a file with a bzImage's setup header naming release:
// enough for the proof's key (its sha256) and its checks (the release).
func fakeImage(t *testing.T, release string) string {
	t.Helper()
	b := make([]byte, 0x1000)
	copy(b[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(b[0x206:], 0x020f)
	binary.LittleEndian.PutUint16(b[0x20E:], 0x400-0x200)
	binary.LittleEndian.PutUint32(b[0x238:], 2047)
	copy(b[0x400:], release+" (test) #1 SMP\x00")
	p := filepath.Join(t.TempDir(), "vmlinuz-"+release)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeQEMUOnPath puts first on PATH a qemu-system-x86_64 that fails if
// it is ever run (an answer from the cache runs no QEMU) and returns it:
// its bytes are the QEMU a stored proof's key names.
func fakeQEMUOnPath(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "qemu-system-x86_64")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\necho fake QEMU >&2; exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return p
}

// seedKey is the key of a recorded boot of line made by the QEMU first
// on PATH (fakeQEMUOnPath) with this test binary as the guest's /init.
func seedKey(t *testing.T, k vm.KernelImage, cpu, line string) proof.Key {
	t.Helper()
	q, err := proof.FileSHA256(nil, filepath.Join(filepath.SplitList(os.Getenv("PATH"))[0], "qemu-system-x86_64"), false)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	i, err := proof.FileSHA256(nil, exe, false)
	if err != nil {
		t.Fatal(err)
	}
	return proof.Key{SHA256: k.SHA256, CPU: cpu, Accel: "tcg", SMP: 1, Cmdline: line, QEMU: q, Init: i}
}

// seedProofs stores the recorded boots of testdata/prove (a real TCG
// boot of Debian's 6.1.0-57-amd64 on Cascadelake-Server per line) under
// image's key in a new cache folder, made by a fake QEMU put on PATH.
func seedProofs(t *testing.T, image string) string {
	t.Helper()
	return seedProofsCPU(t, image, "Cascadelake-Server")
}

// seedProofsCPU is seedProofs stored under the CPU model cpu.
func seedProofsCPU(t *testing.T, image, cpu string) string {
	t.Helper()
	k, err := vm.ReadKernel(image)
	if err != nil {
		t.Fatal(err)
	}
	fakeQEMUOnPath(t, "")
	dir := filepath.Join(t.TempDir(), "proofs")
	c, err := proof.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for line, file := range map[string]string{"": "default", "spectre_v2_user=off": "spectre_v2_user=off", "mitigations=off": "mitigations=off"} {
		data, err := os.ReadFile(filepath.Join("testdata", "prove", file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Store(&proof.Entry{Key: seedKey(t, k, cpu, line),
			Release: k.Release, ToInitS: 7.5, Snapshot: data}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDecideProveGolden: decide --prove answered from the stored proof
// (no boot: the image is not a kernel QEMU could boot) in every format,
// predicted beside observed. The recorded boot of spectre_v2_user=off
// (which left this guest's spectre_v2, STIBP already disabled, as it was)
// is no longer asked: the model, corrected by the corpus, predicts that
// it changes nothing here, so decide offers no line for it and the two
// boots it asks agree (the disagreement's rendering: internal/proven).
func TestDecideProveGolden(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "none.db"))
	image := fakeImage(t, "6.1.0-57-amd64")
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofs(t, image)
	for _, format := range []string{"text", "md", "json"} {
		args := []string{"--root", cascadelakeGuest(t), "decide", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", "Cascadelake-Server", "--format", format}
		out, errs, code := sectax(t, deps, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(errs, "answered from 2 stored boot(s)") || strings.Contains(errs, "booting") {
			t.Errorf("stderr %q", errs)
		}
		out = strings.ReplaceAll(out, image, "IMAGE")
		testutil.Golden(t, filepath.Join("testdata", "decide", "prove-6.1-cascadelake."+format), []byte(out))
		if format == "json" {
			var d decide.Decision
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			// keep-all and off are booted; the three vector options,
			// which no parameter of 6.1 spells here, are not "proved"
			// against the default boot: a note names each.
			if d.Proof == nil || len(d.Proof.Rows) != 2 || d.Proof.Stored != 2 || d.Proof.Booted != 0 || !d.Proof.Agree {
				t.Fatalf("proof %+v", d.Proof)
			}
			for _, o := range d.Options[1:4] {
				if !slices.ContainsFunc(d.Proof.Notes, func(n string) bool { return strings.HasPrefix(n, o.Name+": no command line of this kernel spells it") }) {
					t.Errorf("no note for the folded option %s: %q", o.Name, d.Proof.Notes)
				}
			}
			for _, r := range d.Proof.Rows {
				if len(r.Files) != 17 || r.Verdict != "agree" {
					t.Errorf("row %s: %d files, verdict %s", r.Option, len(r.Files), r.Verdict)
				}
			}
		}
	}
}

// TestProveFlagsNeedProve: the VM's flags without --prove are a usage
// error in one line.
func TestProveFlagsNeedProve(t *testing.T) {
	for _, args := range [][]string{{"decide", "--kernel", "/boot/x"}, {"decide", "--accel", "tcg"}, {"decide", "--prove", "--accel", "xen"}} {
		_, errs, code := sectax(t, fixedDeps(nil), append([]string{"--root", testutil.AttributeRoot(t, "host-6.18")}, args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d: %q", args, code, errs)
		}
	}
}

// TestAdviseProveGolden: advise --target off --prove, answered from the
// same stored proof as decide's (the default line and mitigations=off),
// in both formats.
func TestAdviseProveGolden(t *testing.T) {
	image := fakeImage(t, "6.1.0-57-amd64")
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofs(t, image)
	for _, format := range []string{"text", "json"} {
		args := []string{"--root", cascadelakeGuest(t), "advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", "Cascadelake-Server", "--format", format}
		out, errs, code := sectax(t, deps, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(errs, "answered from 2 stored boot(s)") {
			t.Errorf("stderr %q", errs)
		}
		out = strings.ReplaceAll(out, image, "IMAGE")
		testutil.Golden(t, filepath.Join("testdata", "advise", "prove-off-6.1-cascadelake."+format), []byte(out))
		if format == "json" && (!strings.Contains(out, `"proof": {`) || !strings.Contains(out, `"agree": true`)) {
			t.Errorf("json without its proof: %s", out)
		}
	}
}

// verifyProofRoot is a fake Cascade Lake guest (the CPU of the recorded
// boots: verify uses only proofs of this machine's CPU) whose image (a
// fake one, also returned with its release) is at /boot/vmlinuz-RELEASE.
func verifyProofRoot(t *testing.T) (root, image, release string) {
	t.Helper()
	root = cascadelakeGuest(t)
	rel, err := os.ReadFile(filepath.Join(root, "proc", "sys", "kernel", "osrelease"))
	if err != nil {
		t.Fatal(err)
	}
	release = strings.TrimSpace(string(rel))
	image = fakeImage(t, release)
	os.MkdirAll(filepath.Join(root, "boot"), 0o755)
	data, _ := os.ReadFile(image)
	os.WriteFile(filepath.Join(root, "boot", "vmlinuz-"+release), data, 0o644)
	return root, image, release
}

// TestVerifyShowsStoredProof: verify --expect off on a machine whose
// running kernel's image has a stored proof of mitigations=off shows it
// beside its check, without booting; without a stored proof, nothing
// is shown and no cache folder is made.
func TestVerifyShowsStoredProof(t *testing.T) {
	root, image, release := verifyProofRoot(t)

	deps := fixedDeps(nil)
	deps.ProofCache = filepath.Join(t.TempDir(), "none")
	out, _, _ := sectax(t, deps, "--root", root, "verify", "--expect", "off")
	if strings.Contains(out, "proof:") {
		t.Errorf("a proof shown without one stored:\n%s", out)
	}
	testutil.Absent(t, deps.ProofCache)

	deps.ProofCache = seedProofsAs(t, image, release)
	text, _, _ := sectax(t, deps, "--root", root, "verify", "--expect", "off")
	testutil.Golden(t, filepath.Join("testdata", "verify", "prove-off.text"), []byte(strings.ReplaceAll(text, root, "ROOT")))
	out, errs, code := sectax(t, deps, "--root", root, "verify", "--expect", "off", "--format", "json")
	if code != 3 {
		t.Errorf("verify of a machine running the default: exit %d, want 3: %s", code, errs)
	}
	testutil.Golden(t, filepath.Join("testdata", "verify", "prove-off.json"), []byte(strings.ReplaceAll(out, root, "ROOT")))
	var v struct {
		Proof *struct {
			Stored int
			Rows   []struct {
				Option string
				Agree  bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Proof == nil || v.Proof.Stored != 2 || len(v.Proof.Rows) != 1 || v.Proof.Rows[0].Option != "expect off" {
		t.Fatalf("proof %+v in %s", v.Proof, out)
	}
}

// TestVerifyOnlyThisCPU: the stored boots of another CPU model (here
// Icelake-Server's, on a Cascade Lake machine) are not this machine's
// proof: verify shows none.
func TestVerifyOnlyThisCPU(t *testing.T) {
	root := cascadelakeGuest(t)
	rel, err := os.ReadFile(filepath.Join(root, "proc", "sys", "kernel", "osrelease"))
	if err != nil {
		t.Fatal(err)
	}
	release := strings.TrimSpace(string(rel))
	image := fakeImage(t, release)
	os.MkdirAll(filepath.Join(root, "boot"), 0o755)
	data, _ := os.ReadFile(image)
	os.WriteFile(filepath.Join(root, "boot", "vmlinuz-"+release), data, 0o644)
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofsCPUAs(t, image, release, "Icelake-Server")
	out, _, _ := sectax(t, deps, "--root", root, "verify", "--expect", "off")
	if strings.Contains(out, "proof:") {
		t.Errorf("another CPU model's proof shown:\n%s", out)
	}
}

// cascadelakeGuest is host-6.18 made the machine the recorded boots of
// testdata/prove were made for: a Cascade Lake (family 6, model 85,
// stepping 7) VM guest without SMT, whose proofs boot one vCPU that sees
// the hypervisor (proof.Topology), on the CPU model nearest it.
func cascadelakeGuest(t *testing.T) string {
	t.Helper()
	root := testutil.AttributeRoot(t, "host-6.18")
	p := filepath.Join(root, "proc", "cpuinfo")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		k, _, _ := strings.Cut(l, ":")
		switch strings.TrimSpace(k) {
		case "model":
			l = "model\t\t: 85"
		case "stepping":
			l = "stepping\t: 7"
		case "model name":
			l = "model name\t: Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz"
		case "flags":
			l += " hypervisor"
		}
		out = append(out, l)
	}
	smt := filepath.Join(root, "sys", "devices", "system", "cpu", "smt")
	for f, v := range map[string]string{p: strings.Join(out, "\n"), filepath.Join(smt, "active"): "0\n", filepath.Join(smt, "control"): "notsupported\n"} {
		if err := os.WriteFile(f, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// seedProofsAs is seedProofs with the recorded boots' release made
// release (the running kernel of a fake root).
func seedProofsAs(t *testing.T, image, release string) string {
	t.Helper()
	return seedProofsCPUAs(t, image, release, "Cascadelake-Server")
}

// seedProofsCPUAs is seedProofsAs stored under the CPU model cpu.
func seedProofsCPUAs(t *testing.T, image, release, cpu string) string {
	t.Helper()
	dir := seedProofsCPU(t, image, cpu)
	c, err := proof.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, _ := vm.ReadKernel(image)
	for _, line := range []string{"", "spectre_v2_user=off", "mitigations=off"} {
		e, err := c.Load(seedKey(t, k, cpu, line))
		if err != nil {
			t.Fatal(err)
		}
		e.Snapshot = []byte(strings.ReplaceAll(string(e.Snapshot), "6.1.0-57-amd64", release))
		e.Release = release
		if err := c.Store(e); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestProveKeyNamesQEMU: a stored proof answers only for the QEMU that made
// it: --qemu naming a missing binary is refused in one line, and another
// QEMU (other bytes) is not answered from the cache but boots (and this
// fake QEMU fails); the stored QEMU answers again.
func TestProveKeyNamesQEMU(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "none.db"))
	image := fakeImage(t, "6.1.0-57-amd64")
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofs(t, image)
	other := filepath.Join(t.TempDir(), "qemu-9.9")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho another QEMU >&2; exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := []string{"--root", cascadelakeGuest(t), "advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", "Cascadelake-Server", "--handshake", "20s", "--vm-timeout", "40s"}
	for _, q := range []string{"/nonexistent/qemu-9.9", other} {
		_, errs, code := sectax(t, deps, append(base, "--qemu", q)...)
		if code == 0 || strings.Contains(errs, "answered from") || strings.Count(strings.TrimSpace(testutil.Unwrap(errs)), "\n") > 3 {
			t.Errorf("--qemu %s: exit %d, stderr %q", q, code, errs)
		}
	}
	if _, errs, code := sectax(t, deps, base...); code != 0 || !strings.Contains(errs, "answered from 2 stored boot(s)") {
		t.Errorf("the QEMU that made the proof: exit %d, stderr %q", code, errs)
	}
}

// TestProveBounds: --handshake and --vm-timeout are advise's and decide's
// with --prove (a negative one, or a handshake longer than the whole boot,
// is a usage error in one line naming the flag), a --cpu longer than a
// stored key holds is refused before anything boots, and a --kernel with
// no bzImage header is refused.
func TestProveBounds(t *testing.T) {
	image := fakeImage(t, "6.1.0-57-amd64")
	notKernel := filepath.Join(t.TempDir(), "vmlinuz-fake")
	os.WriteFile(notKernel, make([]byte, 8192), 0o644)
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofs(t, image)
	root := testutil.AttributeRoot(t, "host-6.18")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"decide", "--prove", "--kernel", image, "--accel", "tcg", "--vm-timeout", "-1s"}, 2, "--vm-timeout"},
		{[]string{"advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--handshake", "-5s"}, 2, "--handshake"},
		{[]string{"advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--handshake", "5m", "--vm-timeout", "1m"}, 2, "--vm-timeout"},
		{[]string{"advise", "--target", "off", "--handshake", "5m"}, 2, "--prove"},
		{[]string{"advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", strings.Repeat("x", 300)}, 2, "--cpu"},
		{[]string{"advise", "--target", "off", "--prove", "--kernel", notKernel, "--accel", "tcg", "--cpu", "Cascadelake-Server"}, 2, "not a bzImage"},
	} {
		_, errs, code := sectax(t, deps, append([]string{"--root", root}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errs)
		}
	}
}

// TestProveSweepsStaleFolders: advise and decide --prove remove the boot
// folders and image copies an interrupted proof left in $TMPDIR (their
// owner provably gone: another boot), as lab and run do, and leave none of
// their own.
func TestProveSweepsStaleFolders(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "none.db"))
	tmp := t.TempDir()
	image := fakeImage(t, "6.1.0-57-amd64")
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofs(t, image)
	t.Setenv("TMPDIR", tmp)
	root := cascadelakeGuest(t)
	for _, args := range [][]string{
		{"decide", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", "Cascadelake-Server"},
		{"advise", "--target", "off", "--prove", "--kernel", image, "--accel", "tcg", "--cpu", "Cascadelake-Server"},
	} {
		stale := filepath.Join(tmp, "sectax-proof-stale")
		os.MkdirAll(stale, 0o700)
		os.WriteFile(filepath.Join(stale, "bzImage"), make([]byte, 4096), 0o600)
		os.WriteFile(filepath.Join(stale, ".sectax-owner"), []byte("pid 1\nstart 1\nboot 00000000-0000-0000-0000-000000000000\n"), 0o600)
		_, errs, code := sectax(t, deps, append([]string{"--root", root}, args...)...)
		if code != 0 || !strings.Contains(testutil.Unwrap(errs), "removed "+stale) { // wrapped where TMPDIR is long
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "sectax-*")); len(left) > 0 {
			t.Errorf("%v: left %v", args, left)
		}
	}
}

// TestVerifyRefusedProofsOneLine: unreadable files in the proof cache are
// said in one warning line (their count and the first), not one a file
// and not twice (the cache is scanned for the default and the line).
func TestVerifyRefusedProofsOneLine(t *testing.T) {
	root, image, release := verifyProofRoot(t)
	deps := fixedDeps(nil)
	deps.ProofCache = seedProofsAs(t, image, release)
	for i := range 40 {
		os.WriteFile(filepath.Join(deps.ProofCache, fmt.Sprintf("%064d.json", i)), []byte("{"), 0o600)
	}
	_, errs, _ := sectax(t, deps, "--root", root, "verify", "--expect", "off")
	if n := strings.Count(errs, "warning:"); n != 1 || !strings.Contains(errs, "40 files in the proof cache") {
		t.Errorf("%d warnings:\n%s", n, errs)
	}
}

// TestProofUnmet: a proof that does not agree is exit status 3 (unmet),
// naming the first point; one that agrees is no error.
func TestProofUnmet(t *testing.T) {
	if err := proofUnmet(true, nil); err != nil {
		t.Errorf("agreeing proof: %v", err)
	}
	err := proofUnmet(false, []string{"target vmscape=force: vmscape differs: predicted not_affected \"Not affected\", observed vulnerable \"Vulnerable\""})
	var k exit.Kinded
	if !errors.As(err, &k) || k.ExitKind() != exit.Unmet || !strings.Contains(err.Error(), "vmscape differs") {
		t.Errorf("disagreeing proof: %v", err)
	}
}
