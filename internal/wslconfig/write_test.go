package wslconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var stamp = time.Date(2026, 11, 30, 6, 45, 0, 0, time.UTC)

const (
	before = "[wsl2]\r\nmemory=4GB\r\nkernelCommandLine=mitigations=auto\r\n"
	after  = "[wsl2]\r\nmemory=4GB\r\nkernelCommandLine=mitigations=off\r\n"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileBackupAndMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".wslconfig")
	if err := os.WriteFile(p, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	w, err := WriteFile(p, []byte(before), []byte(after), stamp)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != after {
		t.Fatalf("content %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", fi.Mode().Perm())
	}
	wantBackup := p + ".sectax-20261130-064500.bak"
	if w.Path != p || w.Backup != wantBackup || mustRead(t, wantBackup) != before {
		t.Fatalf("written %+v", w)
	}
	// A second edit in the same second gets its own backup.
	w2, err := WriteFile(p, []byte(after), []byte(before), stamp)
	if err != nil {
		t.Fatal(err)
	}
	if w2.Backup != p+".sectax-20261130-064500-2.bak" || mustRead(t, w2.Backup) != after {
		t.Fatalf("second backup %+v", w2)
	}
	if names := dirNames(t, dir); len(names) != 3 {
		t.Fatalf("left in the folder: %v (a temporary file?)", names)
	}
}

func TestWriteFileNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".wslconfig")
	w, err := WriteFile(p, nil, []byte(after), stamp)
	if err != nil || w.Backup != "" || mustRead(t, p) != after {
		t.Fatalf("%+v %v", w, err)
	}
	// The caller believed the file missing, but it exists now.
	if _, err := WriteFile(p, nil, []byte(before), stamp); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("want a changed-while-editing error, got %v", err)
	}
}

func TestWriteFileChangedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".wslconfig")
	os.WriteFile(p, []byte(before), 0o644)
	_, err := WriteFile(p, []byte("something else"), []byte(after), stamp)
	if err == nil || !strings.Contains(err.Error(), "changed while sectax was editing it") {
		t.Fatalf("got %v", err)
	}
	if mustRead(t, p) != before || len(dirNames(t, dir)) != 1 {
		t.Fatal("file or folder changed")
	}
}

func TestWriteFileSymlink(t *testing.T) {
	home, win := t.TempDir(), t.TempDir()
	real := filepath.Join(win, ".wslconfig")
	link := filepath.Join(home, ".wslconfig")
	os.WriteFile(real, []byte(before), 0o600)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	data, exists, err := ReadFile(link)
	if err != nil || !exists || string(data) != before {
		t.Fatalf("read through the link: %q %v %v", data, exists, err)
	}
	w, err := WriteFile(link, data, []byte(after), stamp)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a plain file")
	}
	if w.Path != real || mustRead(t, real) != after || filepath.Dir(w.Backup) != win {
		t.Fatalf("%+v", w)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if names := dirNames(t, home); !slices.Equal(names, []string{".wslconfig"}) {
		t.Fatalf("left beside the link: %v", names)
	}
}

func TestWriteFileDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, ".wslconfig")
	os.Symlink(filepath.Join(dir, "missing", ".wslconfig"), link)
	if _, err := WriteFile(link, nil, []byte(after), stamp); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("got %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was touched")
	}
}

func TestWriteFileReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".wslconfig")
	os.WriteFile(p, []byte(before), 0o444)
	_, err := WriteFile(p, []byte(before), []byte(after), stamp)
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("got %v", err)
	}
	if mustRead(t, p) != before || !slices.Equal(dirNames(t, dir), []string{".wslconfig"}) {
		t.Fatal("file changed, or a backup or temporary file was left")
	}
}

func TestWriteFileMissingFolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "such", ".wslconfig")
	if _, err := WriteFile(p, nil, []byte(after), stamp); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("read: got %v", err)
	}
}

// mountTiny mounts a tmpfs of size bytes (needs root; skips otherwise).
func mountTiny(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestWriteFileFullDisk: with room for the backup but not for the new
// file, and with no room even for the backup, the write fails with ENOSPC,
// the original stays, and nothing else is left.
func TestWriteFileFullDisk(t *testing.T) {
	for _, tc := range []struct{ size, what string }{
		{"8k", "writing the new content"},
		{"4k", "cannot make the backup"},
	} {
		t.Run(tc.size, func(t *testing.T) {
			dir := mountTiny(t, tc.size)
			p := filepath.Join(dir, ".wslconfig")
			if err := os.WriteFile(p, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := WriteFile(p, []byte(before), []byte(after), stamp)
			if err == nil || !strings.Contains(err.Error(), tc.what) || !strings.Contains(err.Error(), "no space left") ||
				!strings.Contains(err.Error(), "unchanged") {
				t.Fatalf("got %v", err)
			}
			if mustRead(t, p) != before || !slices.Equal(dirNames(t, dir), []string{".wslconfig"}) {
				t.Fatalf("file changed or leftovers: %v", dirNames(t, dir))
			}
		})
	}
}

// TestEditKeepsBytesOutsideTheLine: an edit of a CRLF UTF-16LE file
// changes only the kernelCommandLine line.
func TestEditKeepsBytesOutsideTheLine(t *testing.T) {
	data, err := os.ReadFile("testdata/corpus/utf16le.wslconfig")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Parse(data)
	nf, _, err := f.Set([]string{"mitigations=off"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := strings.Split(f.Text(), "\r\n"), strings.Split(nf.Text(), "\r\n")
	if len(a) != len(b) {
		t.Fatalf("line count %d → %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] && !strings.HasPrefix(a[i], "kernelCommandLine") {
			t.Errorf("line %d changed: %q → %q", i+1, a[i], b[i])
		}
	}
	if !bytes.HasPrefix(nf.Bytes(), []byte{0xFF, 0xFE}) || nf.Encoding() != UTF16LE {
		t.Fatal("encoding lost")
	}
}
