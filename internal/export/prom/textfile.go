package prom

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteTextfile writes data as FileName in dir, node_exporter's textfile
// folder: a new temporary file made in dir (O_EXCL, mode 0644), written,
// synced and renamed over FileName. What is at FileName is never opened:
// the folder may be writable by others, and a link planted there would
// make root write wherever it points (a FIFO would block the export).
// The -o rule (follow links, write through devices) is for a path the user
// names; this is a fixed name in a shared place. The temporary file is
// removed on any failure.
func WriteTextfile(dir string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, "."+FileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write in --textfile-dir %s: %v", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %v", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %v", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %v", tmp.Name(), err)
	}
	dest := filepath.Join(dir, FileName)
	if err = os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("cannot replace %s: %v", dest, err)
	}
	return nil
}
