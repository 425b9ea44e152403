package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goreleaser/chglog"
	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/errgroup"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/tempdir"
	"github.com/sectax/sectax/internal/userfile"
)

// Options are what Build makes and where.
type Options struct {
	// Dir receives the files; it must be new or empty.
	Dir string
	// Arches are the GOARCH values to build (amd64, arm64).
	Arches []string
	// Log receives one line per step (nil: none).
	Log io.Writer
}

// The packages' fixed words.
const (
	summary     = "measure what Spectre/Meltdown mitigations cost on this machine"
	description = `measure what Spectre/Meltdown mitigations cost on this machine
sectax runs perf-bench-faithful microbenchmarks and a build with the
kernel's default mitigations and with mitigations=off, compares the two
with statistics, and advises which protections a user can drop. With
QEMU it boots real kernels to check its predictions (the lab); with perf
it runs perf bench's own workloads.`
	homepage = "https://github.com/sectax/sectax"
	// license is what the packages' license field says: the project has
	// not chosen one (LICENSE says so).
	license = "LicenseRef-sectax-none-chosen"
)

// arches are the architectures dist knows: GOARCH, then rpm's name.
var arches = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// release is what every file of one run shares.
type release struct {
	root    string    // a clone of the module at commit
	commit  string    // the commit, in full
	date    time.Time // SOURCE_DATE_EPOCH, else the commit's time
	version string    // what 'sectax --version' says first (0.1.0-dev)
	packer  string    // the commit's committer, "Name <email>": the maintainer
	stage   string    // a temporary folder
	// uncommitted is whether the work tree had changes not committed,
	// which the release leaves out.
	uncommitted bool
}

// Build writes the release files into opts.Dir and returns their names
// (checksums.txt last).
func Build(ctx context.Context, opts Options) ([]string, error) {
	for _, a := range opts.Arches {
		if _, ok := arches[a]; !ok {
			return nil, fmt.Errorf("-arch %q: dist builds amd64 and arm64", a)
		}
	}
	if err := emptyDir(opts.Dir); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	stage, err := tempdir.Make("dist")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	r, err := describe(ctx, stage)
	if err != nil {
		return nil, err
	}

	// The binaries, then what the one for this machine says about itself.
	bins := map[string]string{}
	for _, a := range append(slices.Clone(opts.Arches), runtime.GOARCH) {
		if bins[a] != "" {
			continue
		}
		logf("dist: building sectax for linux/%s", a)
		bins[a] = filepath.Join(stage, a, "sectax")
		if err := r.build(ctx, a, bins[a]); err != nil {
			return nil, err
		}
	}
	docs, err := r.docs(ctx, bins[runtime.GOARCH])
	if err != nil {
		return nil, err
	}
	logf("dist: sectax %s, commit %s of %s", r.version, r.commit[:12], r.date.UTC().Format(time.RFC3339))
	if r.uncommitted {
		logf("dist: the work tree has changes not committed: the release is commit %s without them", r.commit[:12])
	}

	var written []string
	write := func(name string, data []byte) error {
		if err := userfile.WriteNew(filepath.Join(opts.Dir, name), data); err != nil {
			return err
		}
		written = append(written, name)
		return nil
	}
	for _, a := range opts.Arches {
		bin, err := os.ReadFile(bins[a])
		if err != nil {
			return nil, err
		}
		base := fmt.Sprintf("sectax_%s_linux_%s", r.version, a)
		logf("dist: packing %s", base)
		// The tarball, the .deb, the .rpm and the SBOM at once: each of the
		// first three compresses the binary on its own (a second each).
		var parts [4]struct {
			name string
			data []byte
		}
		var g errgroup.Group
		g.Go(func() (err error) {
			parts[0].name = base + ".tar.gz"
			parts[0].data, err = r.tarball(base, bin, docs)
			return err
		})
		for i, format := range []string{"deb", "rpm"} {
			g.Go(func() (err error) {
				parts[1+i].name, parts[1+i].data, err = r.pack(format, a, bins[a], docs)
				if err != nil {
					return fmt.Errorf("%s for %s: %w", format, a, err)
				}
				return nil
			})
		}
		g.Go(func() (err error) {
			parts[3].name = base + ".cdx.json"
			parts[3].data, err = r.sbom(bins[a])
			return err
		})
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for _, p := range parts {
			if err := write(p.name, p.data); err != nil {
				return nil, err
			}
		}
	}
	var sums bytes.Buffer
	slices.Sort(written)
	for _, name := range written {
		data, err := os.ReadFile(filepath.Join(opts.Dir, name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := write("checksums.txt", sums.Bytes()); err != nil {
		return nil, err
	}
	return written, nil
}

// emptyDir makes dir, or checks that it is an empty folder.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("%v: pass a new or empty folder", err)
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: pass a new or empty folder (dist never overwrites)", dir)
	}
	return nil
}

// describe finds the module and its commit (git), and the time every file
// will carry.
func describe(ctx context.Context, stage string) (*release, error) {
	out, err := child.Output(ctx, child.Options{}, "go", "env", "GOMOD")
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return nil, errors.New("run dist inside sectax's module: go run ./tools/dist DIR")
	}
	r := &release{root: filepath.Dir(gomod), stage: stage}
	out, err = child.Output(ctx, child.Options{Dir: r.root}, "git", "log", "-1", "--format=%H %ct %cn <%ce>")
	if err != nil {
		return nil, fmt.Errorf("dist needs the git checkout of sectax (the commit names the release): git log: %v", gitError(err))
	}
	f := strings.SplitN(strings.TrimSpace(string(out)), " ", 3)
	if len(f) != 3 || len(f[0]) < 12 {
		return nil, fmt.Errorf("git log gave %q: expected a commit, its time and its committer", out)
	}
	r.commit, r.packer = f[0], f[2]
	epoch := f[1]
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		epoch = s
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("SOURCE_DATE_EPOCH=%q: set it to seconds since 1970, or unset it to use the commit's time", epoch)
	}
	r.date = time.Unix(sec, 0).UTC()
	// The release is the commit, not the work tree: a clone of it, where
	// go build stamps the commit (it does not in a git worktree).
	src := filepath.Join(stage, "src")
	if _, err := child.Output(ctx, child.Options{Dir: r.root, Combined: true}, "git", "clone", "--quiet", "--no-checkout", r.root, src); err != nil {
		return nil, fmt.Errorf("git clone %s: %v", r.root, gitError(err))
	}
	if _, err := child.Output(ctx, child.Options{Dir: src}, "git", "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", r.commit); err != nil {
		return nil, fmt.Errorf("git checkout %s: %v", r.commit, gitError(err))
	}
	if out, err := child.Output(ctx, child.Options{Dir: r.root}, "git", "status", "--porcelain", "--untracked-files=no"); err == nil && len(out) > 0 {
		r.uncommitted = true
	}
	r.root = src
	return r, nil
}

func gitError(err error) error {
	var ee *child.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return errors.New(strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// build builds sectax for linux/arch into out: static, -trimpath, no
// build id, no symbol table or DWARF (-s -w: a package's binary is
// stripped; panics still name their functions), the commit stamped (-buildvcs overrides a GOFLAGS that turns
// it off), the baseline instruction set of the architecture.
func (r *release) build(ctx context.Context, arch, out string) error {
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + arch, "GOAMD64=v1", "GOARM64=v8.0"}
	said, err := child.Output(ctx, child.Options{Dir: r.root, Env: env, Combined: true},
		"go", "build", "-trimpath", "-buildvcs=true", "-ldflags=-s -w -buildid=", "-o", out, "./cmd/sectax")
	if err != nil {
		return fmt.Errorf("go build for linux/%s: %v: %s", arch, err, strings.TrimSpace(string(said)))
	}
	return nil
}

// docs are the files the packages carry besides the binary, by their name
// in the tarball (man/man1/sectax.1, completions/_sectax, README.md …).
type docs map[string][]byte

// Where the completions go: in the tarball, and in the packages.
var completionFiles = []struct{ shell, tarball, system string }{
	{"bash", "completions/sectax.bash", "/usr/share/bash-completion/completions/sectax"},
	{"zsh", "completions/_sectax", "/usr/share/zsh/vendor-completions/_sectax"},
	{"fish", "completions/sectax.fish", "/usr/share/fish/vendor_completions.d/sectax.fish"},
}

// docs runs the binary built for this machine for its version, its man
// pages and its completions, and reads README.md and LICENSE.
func (r *release) docs(ctx context.Context, bin string) (docs, error) {
	env := []string{"SOURCE_DATE_EPOCH=" + strconv.FormatInt(r.date.Unix(), 10)}
	out, err := child.Output(ctx, child.Options{Env: env}, bin, "--version")
	if err != nil {
		return nil, fmt.Errorf("sectax --version: %v", err)
	}
	f := strings.Fields(string(out)) // sectax version 0.1.0-dev (commit …)
	if len(f) < 4 || f[1] != "version" || !strings.Contains(string(out), "commit "+r.commit[:12]) {
		return nil, fmt.Errorf("sectax --version said %q: expected its version and commit %s", strings.TrimSpace(string(out)), r.commit[:12])
	}
	r.version = f[2]
	d := docs{}
	man := filepath.Join(r.stage, "man")
	if _, err := child.Output(ctx, child.Options{Env: env, Combined: true}, bin, "man", man); err != nil {
		return nil, fmt.Errorf("sectax man: %v", err)
	}
	pages, err := filepath.Glob(filepath.Join(man, "*.1"))
	if err != nil || len(pages) == 0 {
		return nil, fmt.Errorf("sectax man wrote no page into %s", man)
	}
	for _, p := range pages {
		if d["man/man1/"+filepath.Base(p)], err = os.ReadFile(p); err != nil {
			return nil, err
		}
	}
	for _, c := range completionFiles {
		if d[c.tarball], err = child.Output(ctx, child.Options{Env: env}, bin, "completion", c.shell); err != nil {
			return nil, fmt.Errorf("sectax completion %s: %v", c.shell, err)
		}
	}
	for _, name := range []string{"README.md", "LICENSE"} {
		if d[name], err = os.ReadFile(filepath.Join(r.root, name)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// tarball is base.tar.gz: base/ holding the binary and docs, every entry
// root's with the release's time.
func (r *release) tarball(base string, bin []byte, d docs) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // the default level: the binary dominates, and -9 is slower
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	names := []string{"sectax"}
	for name := range d {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for dir := filepath.Dir(name); dir != "." && !dirs[dir]; dir = filepath.Dir(dir) {
			dirs[dir] = true
		}
	}
	all := []string{""}
	for dir := range dirs {
		all = append(all, dir)
	}
	slices.Sort(all)
	for _, dir := range all {
		if err := r.tarEntry(tw, strings.TrimSuffix(base+"/"+dir, "/")+"/", 0o755, nil); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		data, mode := d[name], int64(0o644)
		if name == "sectax" {
			data, mode = bin, 0o755
		}
		if err := r.tarEntry(tw, base+"/"+name, mode, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarEntry writes one file (or, for a name ending in /, a folder).
func (r *release) tarEntry(tw *tar.Writer, name string, mode int64, data []byte) error {
	h := &tar.Header{Name: name, Mode: mode, Size: int64(len(data)), ModTime: r.date,
		Uname: "root", Gname: "root", Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if strings.HasSuffix(name, "/") {
		h.Typeflag, h.Size = tar.TypeDir, 0
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

// gz is data gzipped as Debian wants a man page: best compression, no name
// or time in the header.
func gz(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pack makes the deb or rpm for arch with nfpm, and returns its
// conventional file name. Its files are staged in a folder of its own
// (Build packs both formats at once).
func (r *release) pack(format, arch, bin string, d docs) (string, []byte, error) {
	dir := filepath.Join(r.stage, "pkg-"+format+"-"+arch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	stagef := func(name string, data []byte) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, data, 0o644)
	}
	var contents files.Contents
	add := func(src, dst string, mode os.FileMode, typ string) {
		contents = append(contents, &files.Content{Source: src, Destination: dst, Type: typ,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: r.date}})
	}
	add(bin, "/usr/bin/sectax", 0o755, "")
	var names []string
	for name := range d {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		page, ok := strings.CutPrefix(name, "man/man1/")
		if !ok {
			continue
		}
		z, err := gz(d[name])
		if err != nil {
			return "", nil, err
		}
		src, err := stagef(page+".gz", z)
		if err != nil {
			return "", nil, err
		}
		add(src, "/usr/share/man/man1/"+page+".gz", 0o644, "")
	}
	for _, c := range completionFiles {
		src, err := stagef(filepath.Base(c.tarball), d[c.tarball])
		if err != nil {
			return "", nil, err
		}
		add(src, c.system, 0o644, "")
	}
	readme, err := stagef("README.md", d["README.md"])
	if err != nil {
		return "", nil, err
	}
	lic, err := stagef("LICENSE", d["LICENSE"])
	if err != nil {
		return "", nil, err
	}
	if format == "deb" {
		add(readme, "/usr/share/doc/sectax/README.md", 0o644, "")
		add(lic, "/usr/share/doc/sectax/copyright", 0o644, "")
	} else {
		add(readme, "/usr/share/doc/sectax/README.md", 0o644, files.TypeRPMReadme)
		add(lic, "/usr/share/licenses/sectax/LICENSE", 0o644, files.TypeRPMLicense)
	}
	if format == "deb" {
		// sectax is a Go program built static on purpose (CGO_ENABLED=0):
		// lintian exempts such binaries only when it sees a Go source
		// package, which nfpm's binary-only .deb has not.
		over, err := stagef("lintian-overrides", []byte("# A Go program, static by design (CGO_ENABLED=0: one binary for any Linux).\nsectax: statically-linked-binary [usr/bin/sectax]\n"))
		if err != nil {
			return "", nil, err
		}
		add(over, "/usr/share/lintian/overrides/sectax", 0o644, "")
	}

	info := &nfpm.Info{
		Name:            "sectax",
		Arch:            arch,
		Platform:        "linux",
		Version:         r.version,
		VersionMetadata: "git" + r.date.Format("20060102") + "." + r.commit[:12],
		Release:         "1",
		Section:         "utils",
		Priority:        "optional",
		Maintainer:      r.packer,
		Description:     description,
		Vendor:          "sectax",
		Homepage:        homepage,
		License:         license,
		MTime:           r.date,
		Overridables: nfpm.Overridables{
			Contents:   contents,
			Recommends: []string{"qemu-system-x86", "linux-perf"},
			RPM: nfpm.RPM{
				Summary:   summary,
				Group:     "Applications/System",
				BuildHost: "sectax-dist",
				Packager:  r.packer,
			},
			// gzip at its default level, as the tarball and the rpm:
			// nfpm's -9 took three times as long for a .deb 0.15% smaller.
			Deb: nfpm.Deb{Compression: "gzip:6"},
		},
	}
	if format == "rpm" {
		// Fedora's and openSUSE's names for the same tools.
		info.Recommends = []string{"qemu-system-x86", "perf"}
	}
	info = nfpm.WithDefaults(info) // splits 0.1.0-dev into version and prerelease
	if format == "deb" {
		// The changelog's entry carries the package's version, as the
		// control file's Version field writes it.
		v := info.Version + "~" + info.Prerelease + "+" + info.VersionMetadata + "-" + info.Release
		if info.Prerelease == "" {
			v = info.Version + "+" + info.VersionMetadata + "-" + info.Release
		}
		if info.Changelog, err = r.changelog(dir, v); err != nil {
			return "", nil, err
		}
	}
	p, err := nfpm.Get(format)
	if err != nil {
		return "", nil, err
	}
	info.Target = ""
	var buf bytes.Buffer
	if err := p.Package(info, &buf); err != nil {
		return "", nil, err
	}
	return p.ConventionalFileName(info), buf.Bytes(), nil
}

// changelog writes the Debian changelog of this build for nfpm (chglog's
// YAML): one entry, the commit.
func (r *release) changelog(dir, version string) (string, error) {
	entries := chglog.ChangeLogEntries{{
		ChangeLogOverridables: chglog.ChangeLogOverridables{
			Deb: &chglog.ChangelogDeb{Urgency: "low", Distributions: []string{"unstable"}},
		},
		Semver:   version,
		Date:     r.date,
		Packager: r.packer,
		Changes: chglog.ChangeLogChanges{{
			Commit: r.commit,
			Note:   "Built from commit " + r.commit[:12] + " (CHANGELOG.md says what changed).",
		}},
	}}
	data, err := yaml.Marshal(entries)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "changelog.yml")
	return p, os.WriteFile(p, data, 0o644)
}
