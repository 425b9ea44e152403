package vm

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cavaliergopher/cpio"
)

// Paths inside the initramfs.
const (
	InitPath    = "init"
	TaskPath    = "lab/task.json"
	ModulesList = "lab/modules"
	ModulesRoot = "lib/modules"
)

// Task says what the guest's /init runs: the name of a registered guest
// task (RegisterTask) and its input, which travels in the initramfs, never
// on the kernel command line.
type Task struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// Channel is the guest device frames go to ("" = DefaultChannel).
	Channel string `json:"channel,omitempty"`
}

// File is an extra file for the initramfs.
type File struct {
	Name string // path inside the archive, without a leading "/"
	Mode os.FileMode
	Data []byte
}

// InitramfsOptions describe an initramfs with sectax as /init.
type InitramfsOptions struct {
	// Init is the static executable to run as /init (the sectax binary).
	Init string
	// ModulesDir is /lib/modules/RELEASE of the kernel; Modules, from
	// ResolveModules, are copied from it and loaded by /init in order.
	ModulesDir string
	Modules    []Module
	Task       Task
	// Files are added as they are (directories made as needed).
	Files []File
}

// ErrNotStatic is wrapped by CheckStatic's error.
var ErrNotStatic = errors.New("not a static executable")

// CheckStatic refuses an executable that needs a dynamic loader: in the
// guest there is none.
func CheckStatic(p string) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("%s: not an ELF executable (%v)", p, err)
	}
	defer f.Close()
	for _, pr := range f.Progs {
		if pr.Type == elf.PT_INTERP {
			return fmt.Errorf("%w: %s needs a dynamic loader, and the guest has none: rebuild with CGO_ENABLED=0 go build -o sectax ./cmd/sectax", ErrNotStatic, p)
		}
	}
	return nil
}

// BuildInitramfs writes a newc cpio archive with opts.Init as /init, the
// modules, the task and the extra files. Entries are written in sorted
// order with a fixed time, so that equal inputs give equal bytes.
func BuildInitramfs(w io.Writer, opts InitramfsOptions) error {
	if err := CheckStatic(opts.Init); err != nil {
		return err
	}
	init, err := os.ReadFile(opts.Init)
	if err != nil {
		return err
	}
	task, err := json.Marshal(opts.Task)
	if err != nil {
		return err
	}
	files := []File{{Name: InitPath, Mode: 0o755, Data: init}, {Name: TaskPath, Mode: 0o644, Data: task}}
	var order bytes.Buffer
	for _, m := range opts.Modules {
		data, err := os.ReadFile(filepath.Join(opts.ModulesDir, m.Path))
		if err != nil {
			return fmt.Errorf("kernel module %s: %w", m.Name, err)
		}
		name := path.Join(ModulesRoot, path.Base(m.Path))
		files = append(files, File{Name: name, Mode: 0o644, Data: data})
		fmt.Fprintln(&order, "/"+name)
	}
	files = append(files, File{Name: ModulesList, Mode: 0o644, Data: order.Bytes()})
	for _, f := range opts.Files {
		f.Name = strings.TrimPrefix(path.Clean("/"+f.Name), "/")
		if f.Name == "" || f.Name == InitPath || f.Name == TaskPath || f.Name == ModulesList {
			return fmt.Errorf("initramfs: extra file %q would replace a file of the lab", f.Name)
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })

	dirs := map[string]bool{"dev": true, "proc": true, "sys": true, "tmp": true, "lab": true, "root": true}
	for _, f := range files {
		for d := path.Dir(f.Name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	sort.Strings(dirList)

	mtime := time.Unix(0, 0)
	cw := cpio.NewWriter(w)
	ino := int64(1)
	hdr := func(h *cpio.Header) error {
		h.ModTime, h.Inode, h.Links = mtime, ino, 1
		ino++
		return cw.WriteHeader(h)
	}
	for _, d := range dirList {
		if err := hdr(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755}); err != nil {
			return err
		}
	}
	// /dev/console comes from the kernel's built-in initramfs, which
	// every kernel with initramfs support unpacks before this one.
	for _, f := range files {
		mode := cpio.FileMode(f.Mode.Perm())
		if mode == 0 {
			mode = 0o644
		}
		if err := hdr(&cpio.Header{Name: f.Name, Mode: cpio.TypeReg | mode, Size: int64(len(f.Data))}); err != nil {
			return err
		}
		if _, err := cw.Write(f.Data); err != nil {
			return err
		}
	}
	return cw.Close()
}

// BuildInitramfsFile writes the initramfs to a new file at p.
func BuildInitramfsFile(p string, opts InitramfsOptions) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := BuildInitramfs(f, opts); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	return f.Close()
}
