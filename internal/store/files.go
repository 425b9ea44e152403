package store

import (
	"fmt"
	"io"
	"os"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// ReadFiles reads and decodes the import files the user named (Decode:
// a run document, a JSON array of them or JSON lines). A file it cannot
// read, one larger than run.MaxDocumentBytes, a malformed document and a
// run given twice are usage errors naming the file.
func ReadFiles(files []string) ([]Doc, error) {
	var docs []Doc
	from := map[string]string{}
	for _, file := range files {
		data, err := readLimited(file, run.MaxDocumentBytes)
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		ds, err := Decode(file, data)
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
// reading it all.
func readLimited(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", file, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", file, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the limit of %d MiB for an import file: split it (sectax export --format jsonl writes one run per line)", file, limit>>20)
	}
	return data, nil
}
