package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blakesmith/ar"

	"github.com/sectax/sectax/internal/child"
)

// TestDist builds the release of this machine's architecture twice from
// the commit checked out, and reads what it wrote: the same bytes both
// times, the checksums, the .deb's files (the man pages and completions
// are the packaged binary's own), the packaged binary's --version naming
// the commit, the SBOM's modules against 'go version -m', and lintian's
// verdict on the .deb when lintian is installed.
func TestDist(t *testing.T) {
	if _, ok := arches[runtime.GOARCH]; !ok {
		t.Skipf("dist builds amd64 and arm64, not %s", runtime.GOARCH)
	}
	ctx := context.Background()
	head, err := child.Output(ctx, child.Options{}, "git", "rev-parse", "HEAD")
	if err != nil {
		t.Skipf("not a git checkout (dist releases a commit): %v", err)
	}
	commit := strings.TrimSpace(string(head))
	dirs := []string{filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")}
	written, err := Build(ctx, Options{Dir: dirs[0], Arches: []string{runtime.GOARCH}})
	if err != nil {
		t.Fatal(err)
	}
	dir := dirs[0]
	// lintian reads the first run's .deb while the second run builds (from
	// the first's build cache: two builds at once would both compile) and
	// the checks below read the files; its verdict is read last. A test
	// that stops early stops lintian before its folder goes.
	lintCtx, stopLint := context.WithCancel(ctx)
	linted, lintDone := make(chan []string, 1), make(chan struct{})
	go func() { defer close(lintDone); linted <- lint(lintCtx, filepath.Join(dir, debOf(written))) }()
	t.Cleanup(func() { stopLint(); <-lintDone })
	if _, err := Build(ctx, Options{Dir: dirs[1], Arches: []string{runtime.GOARCH}}); err != nil {
		t.Fatal(err)
	}
	// Two runs on one commit: the same files, byte for byte.
	for _, name := range written {
		a, _ := os.ReadFile(filepath.Join(dirs[0], name))
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs on the same commit (%v)", name, err)
		}
	}

	var deb, tgz, sbom string
	for _, name := range written {
		switch {
		case strings.HasSuffix(name, "_"+runtime.GOARCH+".deb"):
			deb = name
		case strings.HasSuffix(name, "_linux_"+runtime.GOARCH+".tar.gz"):
			tgz = name
		case strings.HasSuffix(name, "_linux_"+runtime.GOARCH+".cdx.json"):
			sbom = name
		}
	}
	rpm := slices.ContainsFunc(written, func(n string) bool { return strings.HasSuffix(n, "."+arches[runtime.GOARCH]+".rpm") })
	if deb == "" || tgz == "" || sbom == "" || !rpm || len(written) != 5 || written[4] != "checksums.txt" {
		t.Fatalf("dist wrote %v: want a .tar.gz, .deb, .rpm and .cdx.json, then checksums.txt", written)
	}

	// checksums.txt: every other file, as sha256sum -c reads it.
	sums, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, name := range written[:4] {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&want, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if string(sums) != want.String() {
		t.Errorf("checksums.txt:\n%s\nwant:\n%s", sums, want.String())
	}

	// The .deb: its data.tar.gz holds exactly these files.
	files := debFiles(t, filepath.Join(dir, deb))
	pkgd := t.TempDir()
	bin := filepath.Join(pkgd, "sectax")
	if err := os.WriteFile(bin, files["./usr/bin/sectax"], 0o755); err != nil {
		t.Fatal(err)
	}
	version, err := child.Output(ctx, child.Options{}, bin, "--version")
	if err != nil || !strings.Contains(string(version), "commit "+commit[:12]) {
		t.Errorf("the packaged sectax --version said %q (%v): want it to name commit %s", version, err, commit[:12])
	}
	manDir := filepath.Join(pkgd, "man")
	if _, err := child.Output(ctx, child.Options{Env: []string{"SOURCE_DATE_EPOCH=" + epochOf(t)}, Combined: true}, bin, "man", manDir); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
	wantFiles := []string{"./usr/bin/sectax", "./usr/share/doc/sectax/README.md", "./usr/share/doc/sectax/changelog.Debian.gz",
		"./usr/share/doc/sectax/copyright", "./usr/share/lintian/overrides/sectax"}
	for _, c := range completionFiles {
		wantFiles = append(wantFiles, "."+c.system)
		said, err := child.Output(ctx, child.Options{}, bin, "completion", c.shell)
		if err != nil || !bytes.Equal(files["."+c.system], said) {
			t.Errorf("%s is not what the packaged 'sectax completion %s' prints (%v)", c.system, c.shell, err)
		}
	}
	for _, p := range pages {
		name := "./usr/share/man/man1/" + filepath.Base(p) + ".gz"
		wantFiles = append(wantFiles, name)
		page, _ := os.ReadFile(p)
		if got := gunzip(t, files[name]); !bytes.Equal(got, page) {
			t.Errorf("%s is not the packaged 'sectax man' page %s", name, filepath.Base(p))
		}
	}
	var gotFiles []string
	for name := range files {
		gotFiles = append(gotFiles, name)
	}
	slices.Sort(gotFiles)
	slices.Sort(wantFiles)
	if !slices.Equal(gotFiles, wantFiles) {
		t.Errorf("the .deb holds\n%s\nwant\n%s", strings.Join(gotFiles, "\n"), strings.Join(wantFiles, "\n"))
	}
	for _, must := range []string{"./usr/share/man/man1/sectax.1.gz", "./usr/share/man/man1/sectax-run.1.gz"} {
		if files[must] == nil {
			t.Errorf("the .deb has no %s", must)
		}
	}

	// The SBOM lists the modules 'go version -m' lists for the binary.
	checkSBOM(t, filepath.Join(dir, sbom), bin)

	for _, e := range <-linted {
		t.Error(e)
	}
}

// debOf is the .deb among the files a run wrote ("" when none is).
func debOf(written []string) string {
	for _, name := range written {
		if strings.HasSuffix(name, "_"+runtime.GOARCH+".deb") {
			return name
		}
	}
	return ""
}

// lint is lintian's verdict on the .deb: its errors ("E: " lines), or that
// it failed or is missing (an error under CI=true, which installs it).
func lint(ctx context.Context, deb string) []string {
	lintian, err := child.LookPath("lintian")
	if err != nil {
		if os.Getenv("CI") == "true" {
			return []string{"lintian is not installed, and CI=true lints every .deb (.ci/run installs it)"}
		}
		return nil // not linted here
	}
	out, err := child.Output(ctx, child.Options{Combined: true}, lintian, "--no-cfg", deb)
	var errs []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "E: ") {
			errs = append(errs, "lintian: "+line)
		}
	}
	if err != nil && len(errs) == 0 {
		errs = append(errs, fmt.Sprintf("lintian failed: %v: %s", err, out))
	}
	return errs
}

// debFiles reads a .deb (an ar archive) and returns the regular files of
// its data.tar.gz by name.
func debFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := ar.NewReader(f)
	for {
		h, err := rd.Next()
		if err != nil {
			t.Fatalf("%s has no data.tar.gz: %v", path, err)
		}
		if strings.TrimSuffix(h.Name, "/") != "data.tar.gz" {
			continue
		}
		zr, err := gzip.NewReader(rd)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		files := map[string][]byte{}
		for {
			th, err := tr.Next()
			if err == io.EOF {
				return files
			}
			if err != nil {
				t.Fatal(err)
			}
			if th.Typeflag == tar.TypeReg {
				if files[th.Name], err = io.ReadAll(tr); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// epochOf is the release's time as dist takes it: SOURCE_DATE_EPOCH,
// else the commit's.
func epochOf(t *testing.T) string {
	t.Helper()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		return s
	}
	out, err := child.Output(context.Background(), child.Options{}, "git", "log", "-1", "--format=%ct")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Errorf("not gzip: %v", err)
		return nil
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Error(err)
	}
	return out
}

// checkSBOM compares the SBOM's components with the dep lines of 'go
// version -m bin' (a replaced module is listed under its own path).
func checkSBOM(t *testing.T, path, bin string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		BOMFormat  string `json:"bomFormat"`
		Components []struct {
			Name, Version, Purl string
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &bom); err != nil || bom.BOMFormat != "CycloneDX" {
		t.Fatalf("%s is not a CycloneDX JSON document: %v", path, err)
	}
	out, err := child.Output(context.Background(), child.Options{}, "go", "version", "-m", bin)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "dep" {
			want = append(want, f[1]+"@"+f[2])
		}
	}
	for _, c := range bom.Components {
		got = append(got, c.Name+"@"+c.Version)
		if c.Purl != "pkg:golang/"+c.Name+"@"+c.Version {
			t.Errorf("component %s: purl %q", c.Name, c.Purl)
		}
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("the SBOM lists\n%s\n'go version -m' lists\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDistRefuses: dist's own mistakes are one line, before any build.
func TestDistRefuses(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: go run ./tools/dist"},
		{[]string{"-arch", "riscv64", t.TempDir()}, 1, `dist: -arch "riscv64": dist builds amd64 and arm64`},
		{[]string{full}, 1, "is not empty: pass a new or empty folder"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("dist %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("dist wrote into a folder that was not empty: %v", entries)
	}
}
