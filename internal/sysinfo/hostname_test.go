//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHostname: the name below root, trimmed; "" when it is missing or not
// a regular file (a FIFO would block a plain read).
func TestHostname(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proc", "sys", "kernel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Hostname(root); got != "" {
		t.Errorf("no hostname file: %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "hostname"), []byte("box\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Hostname(root); got != "box" {
		t.Errorf("Hostname = %q, want box", got)
	}
	os.Remove(filepath.Join(dir, "hostname"))
	if err := syscall.Mkfifo(filepath.Join(dir, "hostname"), 0o644); err != nil {
		t.Skip(err)
	}
	if got := Hostname(root); got != "" {
		t.Errorf("a FIFO: %q", got)
	}
}
