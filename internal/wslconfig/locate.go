package wslconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/rootfs"
)

// FileName is the name of the file in the Windows user profile.
const FileName = ".wslconfig"

// Runner runs a program in dir and returns what it printed on standard
// output. ExecRunner runs a real child process.
type Runner func(ctx context.Context, dir, name string, args ...string) ([]byte, error)

// ExecRunner runs name as a child process (child.Output: its own process
// group with the parent-death signal, the whole group killed when ctx
// ends, always reaped).
func ExecRunner(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	return child.Output(ctx, child.Options{Dir: dir, WaitDelay: time.Second}, name, args...)
}

// Locator finds %UserProfile%\.wslconfig from inside WSL.
type Locator struct {
	// Root is prefixed to every path read or run ("/" normally; a fake
	// tree in tests).
	Root string
	// Run runs cmd.exe and wslpath (ExecRunner when nil).
	Run Runner
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Timeout bounds each interop command (5 s when zero: the first
	// interop call after the VM starts can take a few seconds).
	Timeout time.Duration

	fs *rootfs.FS // Root, opened by Find
}

// Location is where the file is and how it was found.
type Location struct {
	// Path is the file's path on this machine (below Root).
	Path   string `json:"path"`
	Source string `json:"source"`
	// InRoot is the path as the machine under Root sees it
	// ("/mnt/c/Users/ana/.wslconfig"): Path without the Root prefix.
	InRoot string `json:"-"`
}

// at is the Location of the file in the profile folder p (a path inside
// the root).
func (l Locator) at(p, source string) Location {
	in := path.Join(p, FileName)
	return Location{Path: l.host(in), Source: source, InRoot: in}
}

// NotFoundError says that no Windows profile could be chosen.
type NotFoundError struct {
	// Tried lists what was tried and why it did not work.
	Tried []string
	// Candidates are the profile folders found when more than one was.
	Candidates []string
}

// Error lists what was tried and the profiles found.
func (e *NotFoundError) Error() string {
	msg := "cannot tell where %UserProfile%\\.wslconfig is (" + strings.Join(e.Tried, "; ") + ")"
	if len(e.Candidates) > 0 {
		msg += "; profiles found: " + strings.Join(e.Candidates, ", ")
	}
	return msg
}

// profileSkip are folders under Users that are not a person's profile.
var profileSkip = map[string]bool{
	"public": true, "default": true, "default user": true, "all users": true,
	"defaultuser0": true, "defaultuser100000": true, "wdagutilityaccount": true,
	"defaultapppool": true,
}

// Find looks for the profile in this order: $USERPROFILE when WSLENV
// passed it in; %UserProfile% asked from cmd.exe through interop and
// converted with wslpath (or the /mnt/<drive> rule); the only profile
// folder under the drive mounts. The file itself need not exist.
func (l Locator) Find(ctx context.Context) (Location, error) {
	if l.Root == "" {
		l.Root = "/"
	}
	if abs, err := filepath.Abs(l.Root); err == nil {
		l.Root = abs // programs run in another folder
	}
	if l.Run == nil {
		l.Run = ExecRunner
	}
	if l.Getenv == nil {
		l.Getenv = os.Getenv
	}
	if l.Timeout == 0 {
		l.Timeout = 5 * time.Second
	}
	// A root that cannot be opened holds nothing (a nil rootfs.FS): the
	// search then says no drive is mounted.
	l.fs, _ = rootfs.Open(l.Root)
	defer l.fs.Close()
	mnt := l.automountRoot()
	var tried []string

	if v := l.Getenv("USERPROFILE"); v != "" {
		p := v
		if !strings.HasPrefix(p, "/") {
			p = drivePath(mnt, v)
		}
		if p != "" && l.isDir(p) {
			return l.at(p, "$USERPROFILE (passed in by WSLENV)"), nil
		}
		tried = append(tried, fmt.Sprintf("$USERPROFILE=%q is not a folder here", v))
	}

	drives := l.drives(mnt)
	if len(drives) == 0 {
		tried = append(tried, "no Windows drive is mounted under "+mnt)
		return Location{}, &NotFoundError{Tried: tried}
	}
	if p, why := l.askCmd(ctx, mnt, drives); p != "" {
		return l.at(p, "%UserProfile% from cmd.exe"), nil
	} else {
		tried = append(tried, why)
	}

	var cands []string
	for _, d := range drives {
		users := path.Join(mnt, d, "Users")
		ents, err := l.readDir(users)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if profileSkip[strings.ToLower(e.Name())] || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if fi, err := l.stat(path.Join(users, e.Name())); err == nil && fi.IsDir() {
				cands = append(cands, path.Join(users, e.Name()))
			}
		}
	}
	sort.Strings(cands)
	switch len(cands) {
	case 1:
		return l.at(cands[0], "the only user profile under "+mnt+"*/Users"), nil
	case 0:
		tried = append(tried, "no user profile under "+mnt+"*/Users")
	default:
		tried = append(tried, fmt.Sprintf("%d user profiles under %s*/Users", len(cands), mnt))
	}
	return Location{}, &NotFoundError{Tried: tried, Candidates: cands}
}

// host turns a path inside the (possibly fake) root into a real path.
func (l Locator) host(p string) string {
	return filepath.Join(l.Root, filepath.FromSlash(p))
}

func (l Locator) isDir(p string) bool {
	fi, err := l.stat(p)
	return err == nil && fi.IsDir()
}

// stat, readDir and readFile reach p below the root through rootfs:
// below a fake root a symbolic link that leads out of it is an error,
// never followed, and only regular files are read.
func (l Locator) stat(p string) (fs.FileInfo, error) { return l.fs.Stat(p) }

func (l Locator) readDir(p string) ([]fs.DirEntry, error) { return l.fs.ReadDir(p) }

func (l Locator) readFile(p string) ([]byte, error) { return l.fs.ReadFile(p) }

// automountRoot is [automount] root from /etc/wsl.conf (AutomountRoot).
func (l Locator) automountRoot() string {
	data, _ := l.readFile("/etc/wsl.conf")
	return AutomountRoot(data)
}

// drives are the one-letter folders under the automount root, c first.
func (l Locator) drives(mnt string) []string {
	ents, err := l.readDir(mnt)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if len(n) == 1 && n[0] >= 'a' && n[0] <= 'z' && e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == "c") != (out[j] == "c") {
			return out[i] == "c"
		}
		return out[i] < out[j]
	})
	return out
}

// askCmd runs cmd.exe /c echo %UserProfile% (absolute path: PATH may lack
// the Windows folders; working folder on the drive, or cmd.exe complains
// about UNC paths) and converts the answer to a Linux path.
func (l Locator) askCmd(ctx context.Context, mnt string, drives []string) (string, string) {
	for _, d := range drives {
		cmdExe := path.Join(mnt, d, "Windows/System32/cmd.exe")
		if _, err := l.stat(cmdExe); err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, l.Timeout)
		out, err := l.Run(cctx, l.host(path.Join(mnt, d)), l.host(cmdExe), "/c", "echo %UserProfile%")
		timedOut := cctx.Err() != nil
		cancel()
		if err != nil {
			if timedOut {
				return "", fmt.Sprintf("cmd.exe did not answer within %v", l.Timeout)
			}
			return "", fmt.Sprintf("cmd.exe failed (%v; is interop disabled in /etc/wsl.conf?)", err)
		}
		win := strings.TrimSpace(strings.ReplaceAll(string(out), "\x00", ""))
		if len(win) < 3 || win[1] != ':' || win[2] != '\\' || strings.Contains(win, "%") {
			return "", fmt.Sprintf("cmd.exe printed %q, not a profile folder", win)
		}
		p := l.wslpath(ctx, win)
		if p == "" {
			p = drivePath(mnt, win)
		}
		if p == "" || !l.isDir(p) {
			return "", fmt.Sprintf("%%UserProfile%% is %s, but %s is not a folder here", win, p)
		}
		return p, ""
	}
	return "", "cmd.exe not found under " + mnt + "*/Windows/System32"
}

// wslpath converts a Windows path with WSL's own wslpath, "" when it is not
// there or fails.
func (l Locator) wslpath(ctx context.Context, win string) string {
	for _, c := range []string{"/usr/bin/wslpath", "/bin/wslpath"} {
		if _, err := l.stat(c); err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, l.Timeout)
		out, err := l.Run(cctx, l.host("/"), l.host(c), "-u", win)
		cancel()
		if p := strings.TrimSpace(string(out)); err == nil && strings.HasPrefix(p, "/") {
			return p
		}
		return ""
	}
	return ""
}

// drivePath converts "C:\Users\me" to "/mnt/c/Users/me" by the automount
// rule; "" for anything else (a UNC path).
func drivePath(mnt, win string) string {
	if len(win) < 2 || win[1] != ':' || !isAlpha(rune(win[0])) {
		return ""
	}
	rest := strings.Trim(strings.ReplaceAll(win[2:], `\`, "/"), "/")
	return path.Join(mnt, strings.ToLower(win[:1]), rest)
}

// IsNotFound reports whether err is a NotFoundError.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}
