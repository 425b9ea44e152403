package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/testutil"
)

// TestDecideGolden renders sectax decide on a 6.18 host (kernel syntax)
// and a WSL 2 5.15 guest (per-bug parameters, .wslconfig steps), without
// a store: every saving null with the command that measures it.
func TestDecideGolden(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "none.db"))
	for _, c := range []struct {
		root string
		args []string
	}{
		{"host-6.18", []string{"--protect", "user_kernel,user_user"}},
		{"wsl2-5.15", []string{"--profile", "wsl-dev"}},
		{"host-6.18", nil},
	} {
		for _, format := range []string{"text", "md", "json"} {
			args := append([]string{"--root", testutil.AttributeRoot(t, c.root), "decide", "--format", format}, c.args...)
			out, errs, code := sectax(t, fixedDeps(nil), args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			name := c.root
			if len(c.args) > 0 {
				name += "-" + strings.TrimPrefix(c.args[0], "--")
			}
			testutil.Golden(t, filepath.Join("testdata", "decide", name+"."+format), []byte(out))
			if format == "json" {
				var d decide.Decision
				if err := json.Unmarshal([]byte(out), &d); err != nil {
					t.Fatal(err)
				}
				if len(d.Options) != 5 || (c.args == nil) != (d.Recommended == nil) {
					t.Errorf("%v: %s", args, out)
				}
			}
		}
	}
	for _, bad := range [][]string{{"--protect", "user_kernal"}, {"--protect", ""}, {"--profile", "laptop"}, {"--profile", "desktop", "--protect", "none"}, {"--margin", "0"}, {"--margin", "-2"}} {
		_, errs, code := sectax(t, fixedDeps(nil), append([]string{"--root", testutil.AttributeRoot(t, "host-6.18"), "decide"}, bad...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d: %q", bad, code, errs)
		}
	}
}

// TestDecideUnseenGolden: without the vulnerability folder (a container, a
// masked /sys) decide says in every format that it cannot tell what an
// option gives up, never that off is the same as keep-all.
func TestDecideUnseenGolden(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "none.db"))
	root := testutil.AttributeRoot(t, "host-6.18")
	if err := os.RemoveAll(filepath.Join(root, "sys", "devices", "system", "cpu", "vulnerabilities")); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "md", "json"} {
		out, errs, code := sectax(t, fixedDeps(nil), "--root", root, "decide", "--protect", "none", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		testutil.Golden(t, filepath.Join("testdata", "decide", "unseen-protect-none."+format), []byte(out))
		if strings.Contains(out, "same as keep-all") || strings.Contains(out, `"same_as": "keep-all"`) {
			t.Errorf("%s: an option is called the same as keep-all without the files:\n%s", format, out)
		}
	}
}
