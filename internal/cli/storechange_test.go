package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreChangeJSON: rm and import write one sectax.store-change/v1
// document with --format json (goldens); --quiet leaves the document; a
// format they do not have is a usage error.
func TestStoreChangeJSON(t *testing.T) {
	e := newCLIEnv(t)
	e.golden("import-json", "import", "testdata/runs.json", "--format", "json")
	e.golden("import-again-json", "import", "testdata/runs.json", "--format", "json", "--quiet")
	e.golden("rm-json", "rm", "20261130T08", "--format", "json")
	if code, out, _ := e.run("rm", "20261130T060000-on1", "--quiet"); code != 0 || out != "" {
		t.Errorf("rm --quiet: exit %d, %q", code, out)
	}
	if code, _, stderr := e.run("rm", "on", "--format", "csv"); code != ExitUsage || !strings.Contains(stderr, "--format") {
		t.Errorf("rm --format csv: exit %d, %q", code, stderr)
	}
	if code, _, _ := e.run("import", "--format", "md", "testdata/runs.json"); code != ExitUsage {
		t.Errorf("import --format md: exit %d", code)
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("SECTAX_DB", "postgres://sectax@/sectax?host="+filepath.Join(t.TempDir(), "none"))
	var out string
	var code int
	out, _, code = sectax(t, fixedDeps(nil), "push", "--format", "json")
	if code != 0 || !strings.Contains(out, `"command": "push"`) || !strings.Contains(out, `"notes": [
    "nothing to push: no spool"
  ]`) {
		t.Errorf("push without a spool: exit %d, %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "sectax")); !os.IsNotExist(err) {
		t.Errorf("push made the spool's folder: %v", err)
	}
}
