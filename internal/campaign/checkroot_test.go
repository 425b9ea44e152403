package campaign

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// TestCheckRoot: a campaign measures this machine, so another --root is a
// usage error naming the verb, unless a fake machine boots that tree.
func TestCheckRoot(t *testing.T) {
	if err := (Deps{}).CheckRoot("/", "start"); err != nil {
		t.Errorf("root /: %v", err)
	}
	if err := (Deps{}).CheckRoot("//", "start"); err != nil {
		t.Errorf("root //: %v", err)
	}
	err := (Deps{}).CheckRoot("/mnt/other", "resume")
	if err == nil || exit.Of(err) != exit.Usage {
		t.Fatalf("another root: %v, want a usage error", err)
	}
	if want := "--root /mnt/other describes another machine but campaign resume measures this one"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q", err)
	}
	if err := (Deps{Mechanism: &machine{}}).CheckRoot("/mnt/other", "start"); err != nil {
		t.Errorf("a fake machine's tree: %v", err)
	}
}
