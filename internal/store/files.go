package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/userfile"
)

// ReadFiles reads and decodes the import files the user named (run.Decode:
// a run document, a JSON array of them or JSON lines). A file it cannot
// read, one that is not a regular file (a FIFO, a device, a folder: it is
// refused without blocking), one larger than run.MaxDocumentBytes, a
// malformed document and a run given twice are usage errors naming the
// file. Reading stops when ctx is cancelled (Ctrl-C).
func ReadFiles(ctx context.Context, files []string) ([]run.Doc, error) {
	var docs []run.Doc
	from := map[string]string{}
	for _, file := range files {
		data, err := readLimited(ctx, file, run.MaxDocumentBytes)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		ds, err := run.Decode(file, data)
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		for _, d := range ds {
			if prev, dup := from[d.Run.ID]; dup {
				return nil, exit.Usagef("%s: run %s is also in %s; import each run once", file, d.Run.ID, prev)
			}
			from[d.Run.ID] = file
		}
		docs = append(docs, ds...)
	}
	return docs, nil
}

// readLimited reads file, refusing one larger than limit bytes before
// reading it all, and one that is not a regular file before reading any.
func readLimited(ctx context.Context, file string, limit int64) ([]byte, error) {
	f, err := userfile.OpenRegular(file)
	var nr *userfile.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("cannot import %s: it is %s, not a file of run documents", file, userfile.Kind(nr.Mode))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", file, userfile.Cause(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", file, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the limit of %d MiB for an import file: split it (sectax export --format jsonl writes one run per line)", file, limit>>20)
	}
	return data, nil
}

// ctxReader is a reader that stops when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p[:min(len(p), 1<<20)])
}
