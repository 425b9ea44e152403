package sysinfo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/wslconfig"
)

// WSLKernel reads a kernel release string the way WSL's own init does
// (src/linux/init/util.cpp UtilIsUtilityVm): a capital "Microsoft" is WSL 1
// (lxcore, "4.4.0-19041-Microsoft"), a lower-case "microsoft" is a WSL 2
// VM ("6.6.87.2-microsoft-standard-WSL2"). version is 0 when the release
// names neither; flavor is the release after its version number.
func WSLKernel(release string) (version int, flavor string) {
	switch {
	case strings.Contains(release, "Microsoft"):
		version = 1
	case strings.Contains(release, "microsoft"), strings.Contains(release, "WSL2"):
		version = 2
	default:
		return 0, ""
	}
	if _, after, ok := strings.Cut(release, "-"); ok {
		flavor = after
		// "4.4.0-19041-Microsoft": drop the build number.
		if v, f, ok := strings.Cut(after, "-"); ok && isDigits(v) {
			flavor = f
		}
	}
	return version, flavor
}

// NotWSL is the kernel release read below root when it names no WSL
// kernel (WSLKernel), "" when it does or cannot be read: what says a
// missing .wslconfig is no surprise. The file is read as every machine
// file is (rootfs: no link out of root, regular files only, bounded).
func NotWSL(root string) string {
	fsys, err := rootfs.Open(root)
	if err != nil {
		return ""
	}
	defer fsys.Close()
	release, err := fsys.ReadText("/proc/sys/kernel/osrelease")
	if v, _ := WSLKernel(release); err != nil || v != 0 {
		return ""
	}
	return release
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// DecodeConsoleText decodes the output of a Windows program: wsl.exe writes
// UTF-16LE to a pipe unless WSL_UTF8=1 reached it. The text is taken as
// UTF-16LE when it starts with a UTF-16LE byte-order mark or when most odd
// bytes are NUL; otherwise it is UTF-8. Carriage returns and NULs are
// removed.
func DecodeConsoleText(b []byte) string {
	isUTF16 := bytes.HasPrefix(b, []byte{0xff, 0xfe})
	if !isUTF16 && len(b) >= 2 {
		nul := 0
		for i := 1; i < len(b); i += 2 {
			if b[i] == 0 {
				nul++
			}
		}
		isUTF16 = nul*2 > len(b)/2
	}
	var s string
	if isUTF16 {
		b = bytes.TrimPrefix(b, []byte{0xff, 0xfe})
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		s = string(utf16.Decode(u))
	} else {
		s = strings.TrimPrefix(string(b), "\ufeff")
	}
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\x00", "")
}

var versionRe = regexp.MustCompile(`\d+(?:\.\d+)+(?:-\d+)?`)

// ParseWSLVersion reads the output of `wsl.exe --version` (already
// decoded). The labels are localised, so it goes by position: the first
// line's version is the WSL package version, and the line whose version
// starts with "10." is Windows (the last line in every release so far).
// It also reads `wslinfo --version`, which prints just the version.
func ParseWSLVersion(text string) (pkg, windows string) {
	var versions []string
	for _, line := range strings.Split(text, "\n") {
		if v := versionRe.FindString(line); v != "" {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return "", ""
	}
	pkg = versions[0]
	if len(versions) > 1 {
		last := versions[len(versions)-1]
		if strings.HasPrefix(last, "10.") || strings.HasPrefix(last, "11.") {
			windows = last
		}
	}
	return pkg, windows
}

// OSReleaseValue reads KEY=value from os-release text, unquoting a value
// in matching quotes: the one reader of os-release (sysinfo, advise).
func OSReleaseValue(text, key string) string {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && k == key {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			return v
		}
	}
	return ""
}

// wsl finds a WSL guest and what it knows of its Windows side.
func (c *collector) wsl(ctx context.Context, s *Snapshot) {
	var evidence []string
	version, flavor := WSLKernel(s.Kernel.Release)
	if version != 0 {
		evidence = append(evidence, "kernel release "+s.Kernel.Release)
	}
	if c.isDir("run/WSL") {
		evidence = append(evidence, "/run/WSL")
	}
	interopFile := c.exists("proc/sys/fs/binfmt_misc/WSLInterop") || c.exists("proc/sys/fs/binfmt_misc/WSLInterop-late")
	if interopFile {
		evidence = append(evidence, "binfmt_misc WSLInterop")
	}
	if c.live {
		for _, k := range []string{"WSL_DISTRO_NAME", "WSL_INTEROP"} {
			if os.Getenv(k) != "" {
				evidence = append(evidence, "$"+k)
			}
		}
	}
	if len(evidence) == 0 {
		return
	}
	w := &WSL{Version: version, KernelFlavor: flavor, Evidence: evidence}
	if w.Version == 0 {
		// A custom kernel: the root file system type tells WSL 1 (wslfs,
		// lxfs) from WSL 2 (ext4).
		w.Version, w.KernelFlavor = 2, "custom"
		if m, ok := c.readQuiet("proc/mounts"); ok {
			for _, line := range strings.Split(m, "\n") {
				f := strings.Fields(line)
				if len(f) >= 3 && f[1] == "/" && (f[2] == "wslfs" || f[2] == "lxfs") {
					w.Version = 1
				}
			}
		}
	}
	if c.live {
		w.Distro = os.Getenv("WSL_DISTRO_NAME")
	}
	if w.Distro == "" {
		osr, ok := c.readQuiet("etc/os-release")
		if !ok {
			osr, _ = c.readQuiet("usr/lib/os-release")
		}
		w.Distro = OSReleaseValue(osr, "NAME")
	}
	interop := interopFile || (c.live && os.Getenv("WSL_INTEROP") != "")
	conf, _ := c.readQuiet("etc/wsl.conf")
	if wslconfig.InteropDisabled([]byte(conf)) {
		interop = false
	}
	w.Interop = &interop
	mountRoot := wslconfig.AutomountRoot([]byte(conf))
	if s.Hypervisor.Vendor == "" && w.Version == 2 {
		s.Hypervisor.Vendor, s.Hypervisor.Source = "Hyper-V", "wsl"
		s.Hypervisor.Guest = true
	}

	if c.live {
		c.wslPrograms(ctx, w, interop, mountRoot)
	} else {
		c.locateWSLConfig(ctx, w, false)
	}
	s.WSL = w
}

// locateWSLConfig finds %UserProfile%\.wslconfig with wslconfig.Locator,
// the finder sectax wslconfig edits with, and records what it found: the
// file and how, or why none was chosen ("ambiguous: N candidates" when
// several Windows profiles could be the user's). Below an offline root it
// reads no environment; without interop it runs no program.
func (c *collector) locateWSLConfig(ctx context.Context, w *WSL, interop bool) {
	l := wslconfig.Locator{Root: c.root, Timeout: programTimeout}
	if !c.live {
		l.Getenv = func(string) string { return "" }
	}
	if !c.live || !interop {
		l.Run = func(context.Context, string, string, ...string) ([]byte, error) {
			return nil, errors.New("not run here: sectax runs no Windows program below an offline root or without interop")
		}
	}
	loc, err := l.Find(ctx)
	var nf *wslconfig.NotFoundError
	switch {
	case err == nil:
		w.WSLConfigPath, w.WSLConfigSource = loc.InRoot, loc.Source
		w.WSLConfigExists = c.exists(strings.TrimPrefix(loc.InRoot, "/"))
	case errors.As(err, &nf) && len(nf.Candidates) > 1:
		w.WSLConfigSource = fmt.Sprintf("ambiguous: %d candidates", len(nf.Candidates))
		for _, p := range nf.Candidates {
			w.WSLConfigCandidates = append(w.WSLConfigCandidates, p+"/"+wslconfig.FileName)
		}
	case errors.As(err, &nf):
		w.WSLConfigSource = "not found: " + strings.Join(nf.Tried, "; ")
	default:
		w.WSLConfigSource = "not found: " + err.Error()
	}
}

// wslPrograms asks the running WSL for its package version (wslinfo, then
// wsl.exe, which also gives the Windows version) and locates .wslconfig,
// all concurrently within programTimeout. Anything that fails leaves its
// field empty.
func (c *collector) wslPrograms(ctx context.Context, w *WSL, interop bool, mountRoot string) {
	ctx, cancel := context.WithTimeout(ctx, programTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var pkg, exePkg, win string
	wg.Add(3)
	go func() {
		defer wg.Done()
		if out, err := runProgram(ctx, nil, "", "wslinfo", "--version"); err == nil {
			pkg, _ = ParseWSLVersion(DecodeConsoleText(out))
		}
	}()
	go func() {
		defer wg.Done()
		if !interop {
			return
		}
		env := []string{"WSL_UTF8=1", "WSLENV=" + os.Getenv("WSLENV") + ":WSL_UTF8"}
		if out, err := runProgram(ctx, env, "", windowsProgram(mountRoot, "wsl.exe"), "--version"); err == nil {
			exePkg, win = ParseWSLVersion(DecodeConsoleText(out))
		}
	}()
	go func() {
		defer wg.Done()
		// .wslconfig: the locator asks $USERPROFILE, cmd.exe and the
		// profile folders under the drive mounts. A Windows drive can be
		// slow (9p), so the search runs under the deadline: one that does
		// not finish in time is abandoned and leaves the fields empty.
		found := &WSL{}
		done := make(chan struct{})
		go func() {
			c.locateWSLConfig(ctx, found, interop)
			close(done)
		}()
		select {
		case <-done:
			w.WSLConfigPath, w.WSLConfigExists = found.WSLConfigPath, found.WSLConfigExists
			w.WSLConfigSource, w.WSLConfigCandidates = found.WSLConfigSource, found.WSLConfigCandidates
		case <-ctx.Done():
			w.WSLConfigSource = "not found: the search did not finish within " + programTimeout.String()
		}
	}()
	wg.Wait()
	if pkg == "" {
		pkg = exePkg
	}
	w.WSLPackageVersion, w.WindowsVersion = pkg, win
}

// windowsProgram finds a Windows program: on PATH, else in System32 under
// the automount root (appendWindowsPath=false removes it from PATH).
func windowsProgram(mountRoot, name string) string {
	if p, err := child.LookPath(name); err == nil {
		return p
	}
	return strings.TrimSuffix(mountRoot, "/") + "/c/Windows/System32/" + name
}
