package lab

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// MeasureTask is the guest task of `sectax lab`: verify the boot against
// its configuration, run the suite, return the run document.
const MeasureTask = "measure"

// MeasureInput is the measure task's input: which configuration this boot
// is for, what the suite is, and what the run is called.
type MeasureInput struct {
	RunID string `json:"run_id"`
	Label string `json:"label"`
	// Config is this boot's configuration; Plan all of the plan's, and
	// SeenBootIDs the boots already measured (verification refuses a
	// boot that is not new).
	Config      config.Config   `json:"config"`
	Plan        []config.Config `json:"plan"`
	SeenBootIDs []string        `json:"seen_boot_ids,omitempty"`
	// The run's selection, as `sectax run` takes it.
	Suite    string   `json:"suite"`
	Only     []string `json:"only,omitempty"`
	Skip     []string `json:"skip,omitempty"`
	Params   []string `json:"params,omitempty"`
	Runs     int      `json:"runs,omitempty"`
	Warmup   int      `json:"warmup"`
	Seed     int64    `json:"seed"`
	TimeoutS float64  `json:"timeout_s"`
}

// EncodeRun is the measure task's result payload: the run document,
// gzipped (the serial line is slow under emulation).
func EncodeRun(r *run.Run) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if err := store.Export(zw, []*run.Run{r}); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ImportRun turns a measure task's result into the run document to store:
// it checks that the guest measured what the step asked for (label,
// configuration, a verified boot) and adds the lab block. The document
// keeps the guest's whole environment as the guest wrote it.
func ImportRun(payload []byte, in MeasureInput, lab *run.Lab) (store.Doc, error) {
	zr, err := gzip.NewReader(bytes.NewReader(payload))
	if err != nil {
		return store.Doc{}, fmt.Errorf("guest result: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxFrame*4))
	if err != nil {
		return store.Doc{}, fmt.Errorf("guest result: %w", err)
	}
	docs, err := store.Decode("guest result", data)
	if err != nil {
		return store.Doc{}, err
	}
	if len(docs) != 1 {
		return store.Doc{}, fmt.Errorf("guest result: %d run documents, want 1", len(docs))
	}
	d := docs[0]
	r := d.Run
	switch {
	case r.ID != in.RunID || r.Label != in.Label:
		return store.Doc{}, fmt.Errorf("guest result: run %s labelled %q, expected %s labelled %q", r.ID, r.Label, in.RunID, in.Label)
	case r.Config == nil || r.Config.Name != in.Config.Name:
		return store.Doc{}, fmt.Errorf("guest result: run %s has no %s configuration block", r.ID, in.Config.Name)
	case r.Config.Verification == nil || !r.Config.Verification.OK:
		return store.Doc{}, fmt.Errorf("guest result: run %s was measured on a boot that did not verify", r.ID)
	}
	r.Lab = lab
	return d, nil
}
