package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/userfile"
)

// spill writes r, which the store at dbPath could not take, to
// sectax-unsaved-ID.json beside the database (or in the temporary
// directory when that cannot be written) and returns the file's path;
// 'sectax import' recovers it.
func spill(dbPath string, r *run.Run) (string, error) {
	var b bytes.Buffer
	if err := run.WriteDocs(&b, []run.Doc{{Run: r}}, run.FormatSingle); err != nil {
		return "", err
	}
	name := "sectax-unsaved-" + strings.Map(func(c rune) rune {
		if c == '/' || c < ' ' {
			return '_'
		}
		return c
	}, r.ID) + ".json"
	var errs []error
	for _, dir := range []string{filepath.Dir(dbPath), os.TempDir()} {
		path := filepath.Join(dir, name)
		if err := userfile.WriteNew(path, b.Bytes()); err != nil {
			errs = append(errs, err)
			continue
		}
		return path, nil
	}
	return "", errors.Join(errs...)
}
