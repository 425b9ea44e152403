package prom

import (
	"fmt"
	"path/filepath"

	"github.com/sectax/sectax/internal/userfile"
)

// WriteTextfile writes data as FileName in dir, node_exporter's textfile
// folder: a new temporary file made in dir (O_EXCL, mode 0644), written,
// synced and renamed over FileName (userfile.Replace). What is at FileName
// is never opened: the folder may be writable by others, and a link
// planted there would make root write wherever it points (a FIFO would
// block the export). The -o rule (follow links, write through devices) is
// for a path the user names; this is a fixed name in a shared place. The
// temporary file is removed on any failure.
func WriteTextfile(dir string, data []byte) error {
	dest := filepath.Join(dir, FileName)
	err := userfile.Replace(dest, "."+FileName+".tmp-*", data, 0o644, nil)
	switch userfile.Step(err) {
	case "":
		return err
	case userfile.StepCreate:
		return fmt.Errorf("cannot write in --textfile-dir %s: %v", dir, userfile.Cause(err))
	case userfile.StepRename:
		return fmt.Errorf("cannot replace %s: %v", dest, userfile.Cause(err))
	}
	return fmt.Errorf("cannot write %s: %v", dest, userfile.Cause(err))
}
