package wslconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/userfile"
)

// Choose is the file 'sectax wslconfig' works on: path when the user named
// one (--path), else the one l finds, which must lie inside l.Root.
func (l Locator) Choose(ctx context.Context, path string) (Location, error) {
	if path != "" {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return Location{}, exit.Usagef("--path %s is a folder; give the file, for example --path %s/.wslconfig", path, strings.TrimRight(path, "/"))
		}
		return Location{Path: path, Source: "--path"}, nil
	}
	loc, err := l.Find(ctx)
	if IsNotFound(err) {
		return loc, exit.Usagef("%w; pass --path /mnt/c/Users/NAME/.wslconfig", err)
	}
	if err == nil {
		err = insideRoot(l.Root, loc.Path)
	}
	return loc, err
}

// insideRoot refuses a file found below a --root tree that a symbolic link
// leads out of it: show would print another file, set would rewrite it.
// The file itself may not exist yet; its folder must then be inside.
func insideRoot(root, path string) error {
	if root == "" || filepath.Clean(root) == "/" {
		return nil
	}
	absRoot, err1 := filepath.Abs(root)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return nil
	}
	rel, err := filepath.Rel(absRoot, absPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is outside --root %s; pass --path to name the file", path, root)
	}
	rfs, err := rootfs.Open(absRoot)
	if err != nil {
		return nil // Find has read the root already; nothing to add here
	}
	defer rfs.Close()
	_, err = rfs.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = rfs.Stat(filepath.Dir(rel))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s leads out of --root %s through a symbolic link (%v); refusing to read or write it: fix the link or pass --path", path, root, userfile.Cause(err))
	}
	return nil
}

// Load reads and parses the file at loc; a missing file is an empty one.
func Load(loc Location) (data []byte, exists bool, f *File, err error) {
	data, exists, err = ReadFile(loc.Path)
	if err != nil {
		return nil, false, nil, err
	}
	f, err = Parse(data)
	if err != nil {
		return nil, false, nil, fmt.Errorf("%s: %v", loc.Path, err)
	}
	return data, exists, f, nil
}

// Edited is what 'sectax wslconfig set' or 'unset' did, or with --dry-run
// would do, to a .wslconfig (report lays it out).
type Edited struct {
	// Verb is "set" or "unset"; Params are the parameters as given.
	Verb   string
	Params []string
	// Path is the file as located; Written the file replaced (the target of
	// a link), "" until Write.
	Path, Written string
	// Backup is the copy of the previous content ("" for a new file).
	Backup string
	Result Result
	// Warnings are the edited file's diagnostics.
	Warnings []Diagnostic
	// DryRun: Diff is the change as a unified diff, and nothing is written.
	DryRun bool
	Diff   string
	// Expect is the 'sectax verify --expect' value that matches the edit.
	Expect string

	old, data []byte // what the file held (nil: it did not exist), what it gets
}

// Edit reads the file at loc and applies verb ("set" or "unset") with
// params to it in memory; Write then writes it (unless dryRun, when Diff
// holds the change). Parameters that are refused are a usage error; a file
// that cannot be read or edited is left unchanged.
func Edit(loc Location, verb string, params []string, dryRun bool) (*Edited, error) {
	data, exists, f, err := Load(loc)
	if err != nil {
		return nil, fmt.Errorf("%v; the file is unchanged", err)
	}
	edit := f.Set
	if verb == "unset" {
		edit = f.Unset
	}
	nf, res, err := edit(params)
	var pe *ParamError
	switch {
	case errors.As(err, &pe):
		return nil, exit.Usagef("%v", err)
	case err != nil:
		return nil, fmt.Errorf("%s: %v; the file is unchanged", loc.Path, err)
	}
	e := &Edited{Verb: verb, Params: params, Path: loc.Path, Result: res, Warnings: nf.Warnings(),
		DryRun: dryRun, Expect: expectFor(verb, params, res), data: nf.Bytes()}
	if exists {
		e.old = data
	}
	if res.Changed && dryRun {
		var b bytes.Buffer
		if err := writeUnifiedDiff(&b, loc.Path, verb, f.Text(), nf.Text()); err != nil {
			return nil, err
		}
		e.Diff = b.String()
	}
	return e, nil
}

// Write replaces the file with the edit (WriteFile: checked against what
// Edit read, a timestamped backup, an atomic rename); nothing happens when
// nothing changed or for a dry run.
func (e *Edited) Write(now time.Time) error {
	if !e.Result.Changed || e.DryRun {
		return nil
	}
	wr, err := WriteFile(e.Path, e.old, e.data, now)
	if err != nil {
		return err
	}
	e.Written, e.Backup = wr.Path, wr.Backup
	return nil
}

// expectFor is the verify expectation that matches the edit.
func expectFor(verb string, params []string, res Result) string {
	hasMit := false
	for _, t := range mitigation.ParseCmdline(res.New).Params {
		if t.Raw == "mitigations=off" {
			return "off"
		}
		if t.Key() == "mitigations" {
			hasMit = true
		}
	}
	if verb == "unset" {
		if !hasMit {
			return "auto"
		}
		return fmt.Sprintf("%q", res.New)
	}
	return fmt.Sprintf("%q", strings.Join(params, " "))
}

// writeUnifiedDiff prints the change as a unified diff of the text (line
// endings are not shown; a last line without one is marked as git does).
func writeUnifiedDiff(w *bytes.Buffer, path, verb, before, after string) error {
	return difflib.WriteUnifiedDiff(w, difflib.UnifiedDiff{
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: path,
		ToFile:   path + " (after sectax wslconfig " + verb + ")",
		Context:  3,
	})
}

func diffLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		n := 1
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			n = 2
		}
		out = append(out, s[:i]+"\n")
		s = s[i+n:]
	}
	return out
}
