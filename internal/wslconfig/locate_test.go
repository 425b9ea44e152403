package wslconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocate(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		root, env    string
		want, source string
		notFound     string // substring of the NotFoundError
		candidates   int
		timeout      time.Duration
	}{
		{root: "interop", want: "mnt/c/Users/alice/.wslconfig", source: "%UserProfile% from cmd.exe"},
		{root: "one-profile", want: "mnt/c/Users/alice/.wslconfig", source: "the only user profile under /mnt/*/Users"},
		{root: "one-profile", env: "/mnt/c/Users/alice", want: "mnt/c/Users/alice/.wslconfig", source: "$USERPROFILE (passed in by WSLENV)"},
		{root: "one-profile", env: `C:\Users\alice`, want: "mnt/c/Users/alice/.wslconfig", source: "$USERPROFILE (passed in by WSLENV)"},
		{root: "two-profiles", notFound: "2 user profiles under /mnt/*/Users", candidates: 2},
		{root: "no-interop", notFound: "cmd.exe failed", candidates: 2},
		{root: "slow-cmd", timeout: 200 * time.Millisecond, want: "mnt/c/Users/alice/.wslconfig", source: "the only user profile under /mnt/*/Users"},
		{root: "automount", want: "win/c/Users/Carol Smith/.wslconfig", source: "%UserProfile% from cmd.exe"},
		{root: "wslpath", want: "mnt/data/Profiles/erin/.wslconfig", source: "%UserProfile% from cmd.exe"},
		{root: "empty-root-does-not-exist", notFound: "no Windows drive is mounted under /mnt/"},
	}
	for _, tc := range tests {
		t.Run(tc.root+tc.env, func(t *testing.T) {
			root, _ := filepath.Abs(filepath.Join("testdata/roots", tc.root))
			getenv := noEnv
			if tc.env != "" {
				getenv = func(k string) string {
					if k == "USERPROFILE" {
						return tc.env
					}
					return ""
				}
			}
			loc, err := Locator{Root: root, Getenv: getenv, Timeout: tc.timeout}.Find(context.Background())
			if tc.notFound != "" {
				nf, ok := err.(*NotFoundError)
				if !ok || !strings.Contains(err.Error(), tc.notFound) || len(nf.Candidates) != tc.candidates {
					t.Fatalf("got %+v, %v; want NotFoundError with %q and %d candidates", loc, err, tc.notFound, tc.candidates)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(root, tc.want); loc.Path != want || loc.Source != tc.source {
				t.Fatalf("got %+v, want %s from %q", loc, want, tc.source)
			}
		})
	}
}

func TestDrivePath(t *testing.T) {
	for in, want := range map[string]string{
		`C:\Users\me`:    "/mnt/c/Users/me",
		`d:\`:            "/mnt/d",
		`C:\Users\me\`:   "/mnt/c/Users/me",
		`\\server\share`: "",
		`C`:              "",
		`1:\x`:           "",
	} {
		if got := drivePath("/mnt/", in); got != want {
			t.Errorf("drivePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocateHostileRoot: below a fake root, a Users folder that is a link
// out of the root is not listed (the profile names outside never reach the
// snapshot), and an /etc/wsl.conf link out of the root is not read.
func TestLocateHostileRoot(t *testing.T) {
	outside := t.TempDir()
	for _, d := range []string{"c/Users/mallory", "etc"} {
		if err := os.MkdirAll(filepath.Join(outside, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "etc/wsl.conf"), []byte("[automount]\nroot = /elsewhere/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, d := range []string{"mnt/c", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "c/Users"), filepath.Join(root, "mnt/c/Users")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "etc/wsl.conf"), filepath.Join(root, "etc/wsl.conf")); err != nil {
		t.Fatal(err)
	}
	l := Locator{Root: root, Getenv: func(string) string { return "" },
		Run: func(context.Context, string, string, ...string) ([]byte, error) {
			return nil, errors.New("no programs")
		}}
	loc, err := l.Find(context.Background())
	if err == nil {
		t.Fatalf("found %+v through a link out of the root", loc)
	}
	if strings.Contains(err.Error(), "mallory") || !strings.Contains(err.Error(), "no user profile under /mnt/*/Users") {
		t.Errorf("error %q: the automount root must stay /mnt/ and no outside profile may be listed", err)
	}
}
