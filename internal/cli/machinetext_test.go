package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// TestMachineTextStaysOneLine: a vulnerability file and /proc/cmdline are
// one line each in the kernel's format; a fake root whose files hold a
// line break, a carriage return and U+2028 inside shows each as one line
// in env, verify and attribute plan (the renderers escape the machine's
// text, termSafe), never a line of its own.
func TestMachineTextStaysOneLine(t *testing.T) {
	root := testutil.Root(t, testutil.SysinfoRoot("intel-baremetal"), filepath.Join("testdata", "machine-newline", "root"))
	for _, c := range []struct {
		golden string
		args   []string
		quotes bool // shows a file's text
	}{
		{"env.txt", []string{"env"}, true},
		{"verify-off.txt", []string{"verify", "--expect", "off"}, true},
		{"verify-on.txt", []string{"verify", "--expect", "on"}, false},
		{"attribute-plan.txt", []string{"attribute", "plan"}, true},
	} {
		t.Run(c.golden, func(t *testing.T) {
			_, out, errOut := runCLI(t, append(c.args, "--root", root)...)
			for _, s := range []string{out, errOut} {
				for _, line := range strings.Split(s, "\n") {
					if strings.HasPrefix(strings.TrimSpace(line), "INJECTED") || strings.Contains(line, "forged\r") || strings.ContainsRune(line, '\u2028') {
						t.Errorf("a machine file's line break made a line of its own: %q", line)
					}
				}
			}
			if c.quotes && !strings.Contains(out, `\x0aINJECTED`) {
				t.Errorf("the machine's text is not shown escaped:\n%s", out)
			}
			testutil.Golden(t, filepath.Join("testdata", "machine-newline", c.golden), []byte(out))
		})
	}
}
