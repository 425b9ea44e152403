package sysinfo

import "testing"

// TestCollectAs: a live snapshot carries the version; one of a fake tree
// does not (it describes another machine, not the sectax reading it).
func TestCollectAs(t *testing.T) {
	live, err := CollectAs(t.Context(), "/", "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if !live.Live || live.SectaxVersion != "1.2.3" {
		t.Errorf("live: %v %q", live.Live, live.SectaxVersion)
	}
	fake, err := CollectAs(t.Context(), "testdata/intel-baremetal", "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if fake.SectaxVersion != "" {
		t.Errorf("a fake tree stamped %q", fake.SectaxVersion)
	}
}
