package proof

// The corpus's kernels: Debian's images of each series, fetched with apt
// on a sources list of its own, and read back for a boot (docs/corpus.md).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/vm"
)

// CorpusSeries are the kernel series the corpus fetches from Debian's
// archive: the suite, the package that holds the image (a regular
// expression over package names, the newest version taken), where the
// image is inside it, and the package of its modules when they are apart.
var CorpusSeries = []struct {
	Series, Suite, Package, Image, Modules string
}{
	// experimental's release candidate: 7.3~rc7-1~exp1 is
	// linux-binary-unsigned-7.3-amd64, release 7.3-amd64 (not the -rt
	// or -cloud flavours).
	{"7.3", "experimental", `^linux-binary-unsigned-7\.3(\.[0-9]+\+deb[0-9]+|-rc[0-9]+)?-amd64$`, "usr/lib/modules/{R}/vmlinuz.unsigned", "linux-modules-{R}"},
	{"7.2", "sid", `^linux-binary-unsigned-7\.2\.[0-9]+\+deb[0-9]+-amd64$`, "usr/lib/modules/{R}/vmlinuz.unsigned", "linux-modules-{R}"},
	{"6.12", "trixie", `^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$`, "boot/vmlinuz-{R}", ""},
}

// CorpusSuites are the suites of the corpus's own sources list.
var CorpusSuites = []string{"experimental", "sid", "trixie", "bookworm-backports"}

// FetchCorpusKernels fetches the images of CorpusSeries into dir with
// apt, leaving the system's apt state alone: a sources list of its own
// (uri, CorpusSuites, signed by the Debian archive keyring), its own lists
// and cache below dir; each package is unpacked with dpkg-deb -x and its
// image and modules put at dir/kernels/RELEASE/{vmlinuz,modules}. It
// returns the images' paths; p is told each step (nil: nowhere).
func FetchCorpusKernels(ctx context.Context, dir, uri string, p ui.Printer) ([]string, error) {
	p = ui.Or(p)
	if uri == "" || strings.ContainsAny(uri, " \t\n[]") {
		return nil, fmt.Errorf("the Debian archive URI %q is not one", uri)
	}
	for _, sub := range []string{"lists/partial", "cache/archives/partial", "debs", "unpacked", "kernels"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	var src strings.Builder
	for _, s := range CorpusSuites {
		fmt.Fprintf(&src, "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", uri, s)
	}
	// A new file renamed into place: a link planted at the name is
	// replaced, never followed.
	list := filepath.Join(dir, "sources.list")
	o, err := userfile.CreateIn(dir, "sources.list")
	if err != nil {
		return nil, err
	}
	_, err = o.Write([]byte(src.String()))
	if err := o.Finish(userfile.WriteError(o, err)); err != nil {
		return nil, err
	}
	aptOpts := []string{"-o", "Dir::Etc::sourcelist=" + list, "-o", "Dir::Etc::sourceparts=-",
		"-o", "Dir::State::Lists=" + filepath.Join(dir, "lists"), "-o", "Dir::Cache=" + filepath.Join(dir, "cache")}
	apt := func(opts child.Options, name string, args ...string) (string, error) {
		out, err := child.Output(ctx, opts, name, append(slices.Clone(aptOpts), args...)...)
		if err != nil {
			var ee *child.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%s %s: %w: %s", name, args[0], err, strings.TrimSpace(string(ee.Stderr)))
			}
		}
		return string(out), err
	}
	p.Notef("apt-get update with %s (suites %s)", list, strings.Join(CorpusSuites, ", "))
	if _, err := apt(child.Options{}, "apt-get", "update", "-q"); err != nil {
		return nil, err
	}
	var images []string
	for _, s := range CorpusSeries {
		out, err := apt(child.Options{}, "apt-cache", "search", "--names-only", s.Package)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, line := range strings.Split(out, "\n") {
			if name, _, ok := strings.Cut(line, " - "); ok && regexp.MustCompile(s.Package).MatchString(name) {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			p.Notef("series %s: no package matching %s in %s: not served, left out", s.Series, s.Package, s.Suite)
			continue
		}
		slices.SortFunc(names, func(a, b string) int { return compareVersions(releaseOf(a), releaseOf(b)) })
		pkg := names[len(names)-1]
		release := releaseOf(pkg)
		pkgs := []string{pkg}
		if s.Modules != "" {
			pkgs = append(pkgs, strings.ReplaceAll(s.Modules, "{R}", release))
		}
		p.Notef("series %s: %s", s.Series, strings.Join(pkgs, ", "))
		if _, err := apt(child.Options{Dir: filepath.Join(dir, "debs")}, "apt-get", append([]string{"download", "-q"}, pkgs...)...); err != nil {
			return nil, err
		}
		debs, _ := filepath.Glob(filepath.Join(dir, "debs", "*.deb"))
		unpacked := filepath.Join(dir, "unpacked", release)
		for _, p := range pkgs {
			for _, d := range debs {
				if strings.HasPrefix(filepath.Base(d), p+"_") {
					if _, err := child.Output(ctx, child.Options{}, "dpkg-deb", "-x", d, unpacked); err != nil {
						return nil, fmt.Errorf("dpkg-deb -x %s: %w", d, err)
					}
				}
			}
		}
		kdir := filepath.Join(dir, "kernels", release)
		if err := os.MkdirAll(kdir, 0o755); err != nil {
			return nil, err
		}
		img := filepath.Join(kdir, "vmlinuz")
		os.Remove(img)
		if err := os.Symlink(filepath.Join(unpacked, strings.ReplaceAll(s.Image, "{R}", release)), img); err != nil {
			return nil, err
		}
		mods := filepath.Join(kdir, "modules")
		os.Remove(mods)
		for _, m := range []string{"usr/lib/modules", "lib/modules"} {
			if p := filepath.Join(unpacked, m, release); isDir(p) {
				if err := os.Symlink(p, mods); err != nil {
					return nil, err
				}
				break
			}
		}
		images = append(images, img)
	}
	return images, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// releaseOf is the kernel release in a package name
// ("linux-image-6.12.117+deb13-amd64-unsigned": "6.12.117+deb13-amd64").
func releaseOf(pkg string) string {
	for _, pre := range []string{"linux-binary-unsigned-", "linux-image-"} {
		pkg = strings.TrimPrefix(pkg, pre)
	}
	return strings.TrimSuffix(pkg, "-unsigned")
}

// compareVersions orders releases by their leading numbers.
func compareVersions(a, b string) int {
	num := func(s string) []int {
		var out []int
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
		return out
	}
	return slices.Compare(num(a), num(b))
}

// CorpusKernels are the images to boot, each with its modules: a
// "modules" folder beside the image (FetchCorpusKernels'), else the
// system's /lib/modules/RELEASE.
func CorpusKernels(ctx context.Context, paths []string) ([]vm.Kernel, error) {
	var out []vm.Kernel
	for _, p := range paths {
		mods := filepath.Join(filepath.Dir(p), "modules")
		if !isDir(mods) {
			mods = ""
		}
		ks, err := vm.Kernels(ctx, []string{p}, mods, "/", "")
		if err != nil {
			return nil, err
		}
		out = append(out, ks...)
	}
	return out, nil
}
