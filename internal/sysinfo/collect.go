package sysinfo

import (
	"context"
	"io/fs"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/rootfs"
)

// Note: github.com/prometheus/procfs and its sysfs package are not used
// here. They open paths themselves (so a fake tree's links would have to
// be checked before every call) and export no parser over bytes; the few
// values sysinfo takes from their files (a sysctl's words, MemTotal, the
// clock sources, DMI strings) are read through the one rootfs.FS below.

// programTimeout bounds every external program Collect runs (wslinfo,
// wsl.exe, cmd.exe): a run must not wait on a hung Windows interop.
const programTimeout = 600 * time.Millisecond

// collector reads files below root through one rootfs.FS and remembers
// which were absent or unreadable. One file of this package per source
// fills its part of the snapshot: kernel.go, cmdline.go,
// vulnerabilities.go, cpu.go, system.go, hypervisor.go, wsl.go.
type collector struct {
	root  string
	live  bool
	fs    *rootfs.FS
	notes rootfs.Notes
}

func (c *collector) readDir(rel string) ([]fs.DirEntry, error) { return c.fs.ReadDir(rel) }

func (c *collector) isDir(rel string) bool { return c.fs.IsDir(rel) }

func (c *collector) exists(rel string) bool { return c.fs.Exists(rel) }

// note records err for the file rel: absent or unreadable.
func (c *collector) note(rel string, err error) { c.notes.Note(rel, err) }

// absent records rel as absent.
func (c *collector) absent(rel string) { c.notes.Absent = append(c.notes.Absent, "/"+rel) }

// read returns the text of rel with trailing white space removed,
// recording an absent or unreadable file.
func (c *collector) read(rel string) (string, bool) {
	s, err := c.fs.ReadText(rel)
	if err != nil {
		c.note(rel, err)
		return "", false
	}
	return s, true
}

// readQuiet is read for optional files: nothing is recorded.
func (c *collector) readQuiet(rel string) (string, bool) {
	s, err := c.fs.ReadText(rel)
	return s, err == nil
}

// goToolchain asks the go command on PATH for its version, within a
// second; "" when there is none or it does not answer.
func goToolchain(ctx context.Context) string {
	if _, err := child.LookPath("go"); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	out, err := runProgram(ctx, nil, "", "go", "env", "GOVERSION")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
