package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sectax/sectax/internal/ui"
)

// TestSpoolChecked: the spool is this user's private file, checked before
// it is opened: a spool another user planted (their file, a link to one,
// a hard link to one, a FIFO), a spool folder of theirs or one others may
// write, and a data folder of theirs (root making its spool in a user's
// home) are refused in one line, nothing made or pushed; this user's own
// is accepted.
func TestSpoolChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	other := filepath.Join(t.TempDir(), "theirs.db")
	os.WriteFile(other, []byte("SQLite format 3\x00"), 0o644)
	os.Chown(other, 65534, 65534)
	setup := map[string]func(data string){
		"their file": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			p := filepath.Join(data, "sectax", "spool.db")
			os.WriteFile(p, nil, 0o644)
			os.Chown(p, 65534, 65534)
		},
		"link": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			os.Symlink(other, filepath.Join(data, "sectax", "spool.db"))
		},
		"hard link": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			if err := os.Link(other, filepath.Join(data, "sectax", "spool.db")); err != nil {
				t.Skip(err)
			}
		},
		"own hard link": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			mine := filepath.Join(data, "mine.db")
			os.WriteFile(mine, nil, 0o600)
			os.Link(mine, filepath.Join(data, "sectax", "spool.db"))
		},
		"fifo": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(data, "sectax", "spool.db"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"their folder": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			os.Chown(filepath.Join(data, "sectax"), 65534, 65534)
		},
		"open folder": func(data string) {
			os.MkdirAll(filepath.Join(data, "sectax"), 0o755)
			os.Chmod(filepath.Join(data, "sectax"), 0o777)
		},
		"their data folder": func(data string) { os.Chown(data, 65534, 65534) },
	}
	for name, plant := range setup {
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			os.Mkdir(data, 0o755)
			plant(data)
			t.Setenv("XDG_DATA_HOME", data)
			spool, err := SpoolPath()
			if err != nil {
				t.Fatal(err)
			}
			for _, create := range []bool{true, false} {
				err := checkSpool(spool, create)
				if name == "their data folder" && !create {
					continue // no spool folder: nothing to push, nothing made
				}
				if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "remove it") && !strings.Contains(err.Error(), "XDG_DATA_HOME") {
					t.Errorf("create=%v: err = %v", create, err)
				}
			}
			if name == "their data folder" {
				if _, err := os.Lstat(filepath.Join(data, "sectax")); err == nil {
					t.Error("the spool's folder was made in another user's folder")
				}
				return
			}
			if _, err := refOf("postgres://127.0.0.1:1/x").PushSpool(context.Background(), Options{}); err == nil {
				t.Error("push used the planted spool")
			}
		})
	}
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv("XDG_DATA_HOME", data)
	spool, _ := SpoolPath()
	if err := checkSpool(spool, true); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Dir(spool)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool folder %v %v", fi, err)
	}
}

// TestSpoolEnvOverBound: a spooled run whose environment is over the
// bound a read takes (MaxReadEnvBytes) is pushed as the store reads it,
// without its environment, and the push says so.
func TestSpoolEnvOverBound(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	ctx := context.Background()
	_, u := openPG(t)
	spool, _ := SpoolPath()
	if err := checkSpool(spool, true); err != nil {
		t.Fatal(err)
	}
	sp, err := refOf(spool).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := testRun("20261130T060000-bigenv", "on")
	if err := sp.Begin(r); err != nil {
		t.Fatal(err)
	}
	big := `{"pad":"` + strings.Repeat("x", MaxReadEnvBytes) + `"}`
	if _, err := sp.db.ExecContext(ctx, `UPDATE runs SET env = ? WHERE id = ?`, big, r.ID); err != nil {
		t.Fatal(err)
	}
	sp.Close()
	out := &ui.Recorder{}
	p, err := refOf(u).PushSpool(ctx, Options{Out: out})
	if err != nil || len(p.Moved) != 1 {
		t.Fatalf("push: %+v %v", p, err)
	}
	said := out.Notes()
	if !slices.ContainsFunc(said, func(s string) bool {
		return strings.Contains(s, r.ID) && strings.Contains(s, "over the limit") && strings.Contains(s, "pushed as read")
	}) {
		t.Errorf("the push did not say the environment was left out: %q", said)
	}
}
