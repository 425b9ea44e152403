package testutil

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Layer is one fake root of a manifest: its base tree, the folder laid
// over it and the base's files it lacks.
type Layer struct {
	Name, Base, Overlay string
	Without             []string
}

// Layers reads the manifest roots.txt of dir (a testdata folder): its
// fake roots in the order they first appear. A malformed manifest fails t.
//
// A fake root that is a machine tree of internal/sysinfo/testdata with a
// few files changed is not committed as a copy of that tree: roots.txt
// names its base and dir/roots/NAME holds only the files that differ;
// LayeredRoot assembles it into t.TempDir() at test time. Each line is
// "NAME from BASE" (once a root) or "NAME without PATH" (a file of BASE,
// slash-separated, that the root lacks); blank lines and lines starting
// with # are comments:
//
//	debian-grub  from     intel-baremetal
//	wsl2-5.15    from     wsl2-intel-on
//	wsl2-5.15    without  sys/devices/system/cpu/vulnerabilities/tsa
func Layers(t testing.TB, dir string) []Layer {
	t.Helper()
	ls, err := readLayers(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

func readLayers(dir string) ([]Layer, error) {
	path := filepath.Join(dir, "roots.txt")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ls []Layer
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 3 || (w[1] != "from" && w[1] != "without") {
			return nil, fmt.Errorf("%s:%d: want NAME from BASE or NAME without PATH, got %q", path, n, line)
		}
		i := slices.IndexFunc(ls, func(l Layer) bool { return l.Name == w[0] })
		if i < 0 {
			ls = append(ls, Layer{Name: w[0], Overlay: filepath.Join(dir, "roots", w[0])})
			i = len(ls) - 1
		}
		switch {
		case w[1] == "without":
			ls[i].Without = append(ls[i].Without, w[2])
		case ls[i].Base != "":
			return nil, fmt.Errorf("%s:%d: %s has a second base", path, n, w[0])
		default:
			ls[i].Base = SysinfoRoot(w[2])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, l := range ls {
		if l.Base == "" {
			return nil, fmt.Errorf("%s: %s has no base (NAME from BASE)", path, l.Name)
		}
	}
	return ls, nil
}

// LayeredRoot assembles the fake root name of the manifest in dir (see
// Layers) into a new folder of t.TempDir() and returns its path.
func LayeredRoot(t testing.TB, dir, name string) string {
	t.Helper()
	for _, l := range Layers(t, dir) {
		if l.Name == name {
			return Root(t, l.Base, l.Overlay, l.Without...)
		}
	}
	t.Fatalf("no fake root %q in %s", name, filepath.Join(dir, "roots.txt"))
	return ""
}

// Root makes a fake root in a new folder of t.TempDir() and returns its
// path: a copy of the tree base without the files without (slash-separated
// paths below base, each of which must exist), then the tree overlay ("" or
// a missing folder for none) copied over it, its files replacing base's.
// Regular files keep their bytes and permission bits, symbolic links their
// target; a link that is absolute or leads out of its tree, a FIFO, a
// device or a socket fails t: a tree that holds one on purpose is made by
// its test, not copied.
func Root(t testing.TB, base, overlay string, without ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "root")
	if err := copyTree(dst, base, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range without {
		if !filepath.IsLocal(p) {
			t.Fatalf("%s is not a path below %s", p, base)
		}
		full := filepath.Join(dst, filepath.FromSlash(p))
		if _, err := os.Lstat(full); err != nil {
			t.Fatalf("%s lacks %s, which a layer removes", base, p)
		}
		if err := os.RemoveAll(full); err != nil {
			t.Fatal(err)
		}
	}
	if overlay != "" {
		if _, err := os.Stat(overlay); err == nil {
			if err := copyTree(dst, overlay, func(path string) error {
				// a file of the overlay replaces the base's
				if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
					return os.Remove(path)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return dst
}

// CopyTree makes dst a copy of the tree src (a fixture under testdata/,
// to break files in without touching it): dst is replaced, src copied as
// Root copies it.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(dst, src, nil); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the tree src into dst (created if missing), calling
// replace, if not nil, on the destination of each file before writing it.
func copyTree(dst, src string, replace func(string) error) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if replace != nil {
			if err := replace(to); err != nil {
				return err
			}
		}
		switch {
		case info.Mode().IsRegular():
			return copyFile(to, path, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) || !filepath.IsLocal(filepath.Join(filepath.Dir(rel), target)) {
				return fmt.Errorf("%s: a link out of the tree (to %s) is not copied", path, target)
			}
			return os.Symlink(target, to)
		default:
			return fmt.Errorf("%s: %s is neither a file, a folder nor a link; not copied", path, info.Mode().Type())
		}
	})
}

func copyFile(dst, src string, perm fs.FileMode) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm) // the bits the umask took
}
