package wslconfig

import (
	"context"
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
