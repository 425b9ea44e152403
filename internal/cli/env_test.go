package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

// fixtures are the fake machine trees of internal/sysinfo/testdata.
var fixtures = []string{
	"firecracker-dev", "wsl2-intel-on", "wsl2-intel-off", "intel-baremetal",
	"amd-zen4-baremetal", "arm64-graviton3", "container-novulns", "old-4.15-intel",
	"arm64-graviton1-a72", "powerpc-power9", "s390x-z15",
	"loongarch-3c6000", "arm-rpi4-v7l", "powerpc-power9-qemu", "s390x-z15-zvm", "azure-icelake",
}

// runCLI runs sectax with args through mainWith and returns its exit code,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWith(context.Background(), args, &out, &errb, Deps{})
	checkTextWidths(t, Deps{}, args, out.String())
	return code, out.String(), errb.String()
}

func TestEnvGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			for _, format := range []string{"text", "json"} {
				code, out, errOut := runCLI(t, "env", "--root", testutil.SysinfoRoot(fx), "--format", format)
				if code != 0 || errOut != "" {
					t.Fatalf("env --format %s: exit %d, stderr %q", format, code, errOut)
				}
				if format == "text" { // report.EnvText's golden
					testutil.Golden(t, filepath.Join("..", "report", "testdata", "env", fx+".txt"), []byte(out))
				} else {
					testutil.Golden(t, filepath.Join("testdata", "env", fx+".json"), []byte(out))
				}
			}
		})
	}
}

// TestEnvJSONContract checks the JSON names other packages code against,
// on the study's WSL trees, by decoding into a generic map.
func TestEnvJSONContract(t *testing.T) {
	for _, tt := range []struct {
		fixture, mode string
	}{
		{"wsl2-intel-on", "on"},
		{"wsl2-intel-off", "off"},
		{"firecracker-dev", "custom"},
		{"container-novulns", "on"},
	} {
		code, out, _ := runCLI(t, "env", "--root", testutil.SysinfoRoot(tt.fixture), "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d", tt.fixture, code)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{
			"kernel.release", "kernel.version", "kernel.uptime_seconds", "kernel.clocksource", "kernel.preemption",
			"cmdline.raw", "cmdline.tokens", "cmdline.mitigations", "mitigation_mode", "mitigation_mode_reason",
			"vulnerabilities", "cpu.vendor", "cpu.model_name", "cpu.family", "cpu.model", "cpu.stepping", "cpu.microcode",
			"cpu.online", "cpu.possible", "cpu.bugs", "cpu.flags", "hypervisor.vendor", "wsl", "speculation",
			"memory.total_bytes", "thp", "boot_id", "hostname", "os_release",
		} {
			if _, ok := lookup(doc, path); !ok {
				t.Errorf("%s: JSON lacks %s", tt.fixture, path)
			}
		}
		if m, _ := lookup(doc, "mitigation_mode"); m != tt.mode {
			t.Errorf("%s: mitigation_mode = %v, want %s", tt.fixture, m, tt.mode)
		}
		// Live-only fields must not appear for a fake tree.
		for _, live := range []string{"go_version", "sectax_version"} {
			if _, ok := doc[live]; ok {
				t.Errorf("%s: %s present for a fake root", tt.fixture, live)
			}
		}
	}
	// wsl is an object on WSL, null elsewhere; vulnerabilities null when absent.
	_, out, _ := runCLI(t, "env", "--root", testutil.SysinfoRoot("wsl2-intel-off"), "--format", "json")
	var s sysinfo.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.WSL == nil || s.WSL.Version != 2 || s.WSL.KernelFlavor != "microsoft-standard-WSL2" || s.WSL.WSLConfigPath != "/mnt/c/Users/dev/.wslconfig" {
		t.Errorf("wsl = %+v", s.WSL)
	}
	_, out, _ = runCLI(t, "env", "--root", testutil.SysinfoRoot("container-novulns"), "--format", "json")
	if !strings.Contains(out, `"vulnerabilities": null`) || !strings.Contains(out, `"wsl": null`) {
		t.Errorf("container JSON lacks null vulnerabilities/wsl")
	}
}

func lookup(doc map[string]any, path string) (any, bool) {
	var cur any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestEnvSummaryLines(t *testing.T) {
	for fx, want := range map[string]string{
		"wsl2-intel-on":      "Mitigations: ON (default) — 7 mitigated, 0 vulnerable, 9 not affected, 3 unknown; Hyper-V guest (WSL 2)",
		"wsl2-intel-off":     "Mitigations: OFF (off) — 1 mitigated, 6 vulnerable, 9 not affected, 3 unknown; Hyper-V guest (WSL 2)",
		"firecracker-dev":    "Mitigations: CUSTOM (auto,no_guest_host,no_guest_guest) — 4 mitigated, 0 vulnerable, 15 not affected; KVM guest (Firecracker)",
		"intel-baremetal":    "Mitigations: ON (default) — 12 mitigated, 0 vulnerable, 2 not affected; bare metal",
		"amd-zen4-baremetal": "Mitigations: ON (auto,nosmt) — 6 mitigated, 0 vulnerable, 13 not affected; bare metal",
		"arm64-graviton3":    "Mitigations: ON (default) — 3 mitigated, 0 vulnerable, 11 not affected; KVM guest (AWS)",
		"container-novulns":  "Mitigations: ON (default) — no vulnerability files; virtual machine (hypervisor unknown)",
		"old-4.15-intel":     "Mitigations: ON (default) — 5 mitigated, 1 vulnerable, 0 not affected; bare metal",
		"powerpc-power9":     "Mitigations: ON (default) — 5 mitigated, 0 vulnerable, 9 not affected; PowerVM guest (pSeries LPAR)",
		"s390x-z15":          "Mitigations: ON (default) — 2 mitigated, 0 vulnerable, 12 not affected; bare metal",
		// issue 27: the architectures and guests named from the kernel's evidence
		"loongarch-3c6000":    "Mitigations: ON (default) — 1 mitigated, 0 vulnerable, 18 not affected; bare metal",
		"arm-rpi4-v7l":        "Mitigations: ON (default) — 2 mitigated, 0 vulnerable, 12 not affected; bare metal",
		"powerpc-power9-qemu": "Mitigations: ON (default) — 5 mitigated, 0 vulnerable, 9 not affected; KVM guest (pSeries (QEMU))",
		"s390x-z15-zvm":       "Mitigations: ON (default) — 2 mitigated, 0 vulnerable, 12 not affected; z/VM guest (z/VM 7.2.0)",
		"azure-icelake":       "Mitigations: ON (default) — 6 mitigated, 0 vulnerable, 7 not affected, 1 unknown; Hyper-V guest (Azure)",
	} {
		_, out, _ := runCLI(t, "env", "--root", testutil.SysinfoRoot(fx))
		if got, _, _ := strings.Cut(unwrapText(out), "\n"); got != want {
			t.Errorf("%s:\n got  %s\n want %s", fx, got, want)
		}
	}
}

func TestEnvErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"env", "--root", filepath.Join(dir, "nowhere")}, ExitUsage, "is not a directory"},
		{[]string{"env", "--root", dir}, ExitUsage, "holds neither proc/ nor sys/"},
		{[]string{"env", "--format", "yaml"}, ExitUsage, `--format "yaml" is not accepted`},
		{[]string{"env", "extra"}, ExitUsage, "sectax env takes no arguments"},
	} {
		code, out, errOut := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d with %q", tt.args, code, out, errOut, tt.code, tt.msg)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "sectax: ") {
			t.Errorf("%v: error is not one line: %q", tt.args, errOut)
		}
	}
}

// TestEnvOutputFile checks -o: the file holds the JSON and nothing is left
// behind on failure.
func TestEnvOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env.json")
	code, stdout, _ := runCLI(t, "env", "--root", testutil.SysinfoRoot("arm64-graviton3"), "--format", "json", "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	var s sysinfo.Snapshot
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil || s.CPU.Arch != "arm64" {
		t.Fatalf("decode: %v, arch %q", err, s.CPU.Arch)
	}
	code, _, _ = runCLI(t, "env", "--root", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "bad.txt"))
	if code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestEnvLive runs env on this machine: it must work and carry the live
// fields. It asserts nothing about the machine beyond what every Linux has.
func TestEnvLive(t *testing.T) {
	code, out, errOut := runCLI(t, "env", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s sysinfo.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !s.Live || s.Kernel.Release == "" || s.GoVersion == "" || s.SectaxVersion != Version || s.BootID == "" {
		t.Errorf("live snapshot lacks fields: live=%v release=%q go=%q sectax=%q boot=%q",
			s.Live, s.Kernel.Release, s.GoVersion, s.SectaxVersion, s.BootID)
	}
}

// TestEnvBrokenTree: an unreadable command line and an unreadable
// vulnerability entry are reported, not fatal.
func TestEnvBrokenTree(t *testing.T) {
	root := t.TempDir()
	testutil.CopyTree(t, testutil.SysinfoRoot("old-4.15-intel"), root)
	os.Remove(filepath.Join(root, "proc", "cmdline"))
	os.Mkdir(filepath.Join(root, "proc", "cmdline"), 0o755)
	os.Symlink("gone", filepath.Join(root, "sys/devices/system/cpu/vulnerabilities/newbug"))
	code, out, errOut := runCLI(t, "env", "--root", root)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"Mitigations: UNKNOWN (default) — 5 mitigated, 1 vulnerable, 0 not affected, 1 unknown; bare metal",
		"Mode unknown: /proc/cmdline could not be read",
		"newbug             unknown     (unreadable: no such file or directory)",
		"unreadable  /proc/cmdline (is a directory)",
		"            /sys/devices/system/cpu/smt/control",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestEnvHostileRoot: `sectax env --root DIR` where DIR/proc/cmdline is a
// link to a file outside DIR (as to /etc/shadow) prints none of it.
func TestEnvHostileRoot(t *testing.T) {
	root := t.TempDir()
	testutil.CopyTree(t, wslOn, root)
	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:SECRET-HASH:19000:0:99999:7:::\n"), 0o600)
	os.Remove(filepath.Join(root, "proc", "cmdline"))
	if err := os.Symlink(secret, filepath.Join(root, "proc", "cmdline")); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		out, errs, code := sectax(t, fixedDeps(nil), "env", "--root", root, "--format", format)
		if code != 0 || strings.Contains(out, "SECRET") || strings.Contains(errs, "SECRET") {
			t.Fatalf("%s: exit %d, the outside file leaked:\n%s%s", format, code, out, errs)
		}
		if format == "json" && !strings.Contains(out, "escapes") {
			t.Errorf("the escaping link is not recorded:\n%s", out)
		}
	}
}

// TestEnvUnreadableVulnerabilities: a vulnerabilities directory that exists
// but cannot be read (EACCES) is reported as unreadable, with the error,
// never as absent. As root, which reads anything, the command runs as
// nobody.
func TestEnvUnreadableVulnerabilities(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "tree")
	testutil.CopyTree(t, wslOn, root)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o755)
		} else {
			os.Chmod(p, 0o644)
		}
		return nil
	})
	vdir := filepath.Join(root, "sys/devices/system/cpu/vulnerabilities")
	if err := os.Chmod(vdir, 0); err != nil {
		t.Fatal(err)
	}
	var out, errs string
	if os.Geteuid() != 0 {
		var code int
		out, errs, code = sectax(t, fixedDeps(nil), "env", "--root", root)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	} else {
		for d := base; d != "/" && d != "."; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
				os.Chmod(d, fi.Mode().Perm()|0o005)
			}
		}
		exe := filepath.Join(base, "sectax")
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(exe, b, 0o755)
		cmd := exec.Command(exe, "env", "--root", root)
		cmd.Env = []string{"SECTAX_CLI_MAIN=1", "PATH=/usr/bin:/bin", "HOME=/nonexistent"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, e.String())
		}
		out, errs = o.String(), e.String()
	}
	want := "Vulnerabilities: /sys/devices/system/cpu/vulnerabilities exists but cannot be read (permission denied)"
	if !strings.Contains(unwrapText(out), want) || strings.Contains(out, "is absent") || !strings.Contains(out, "vulnerability files unreadable") {
		t.Errorf("stdout lacks %q:\n%s%s", want, out, errs)
	}
}

// TestEnvHostilePlatformText: the hypervisor's evidence and platform come
// from files below --root (/proc/sysinfo, /proc/cpuinfo); an escape
// sequence in them reaches neither the summary line nor the evidence.
func TestEnvHostilePlatformText(t *testing.T) {
	root := t.TempDir()
	testutil.CopyTree(t, testutil.SysinfoRoot("s390x-z15-zvm"), root)
	si := filepath.Join(root, "proc", "sysinfo")
	b, err := os.ReadFile(si)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("z/VM    7.2.0"), []byte("z/VM \x1b]0;owned\x07 7.2.0\x1b[2J"), 1)
	if err := os.WriteFile(si, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "env", "--root", root)
	if code != 0 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "z/VM guest (z/VM") {
		t.Errorf("exit %d; output:\n%q", code, out)
	}
}

// unwrapText joins each line that text wrapping continued (indented by two
// more spaces than the line it continues) back onto that line, so a test
// can look for a sentence wherever the 100-column wrap broke it.
func unwrapText(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		if n := len(out); n > 0 && l != "" && out[n-1] != "" {
			prev := out[n-1]
			ind := len(prev) - len(strings.TrimLeft(prev, " "))
			if strings.HasPrefix(l, strings.Repeat(" ", ind+2)) && !strings.HasPrefix(l, strings.Repeat(" ", ind+3)) {
				out[n-1] = prev + " " + strings.TrimLeft(l, " ")
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
