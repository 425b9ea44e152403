package lab

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/sectax/sectax/internal/vm"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
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
	Config      bootconfig.Config   `json:"config"`
	Plan        []bootconfig.Config `json:"plan"`
	SeenBootIDs []string            `json:"seen_boot_ids,omitempty"`
	// The run's selection, as `sectax run` takes it (checked on the
	// host by plan.Make; the guest plans it again).
	plan.Request
	// Cmdline is the whole command line the host passes the kernel
	// (QEMU's -append) and Release the release the host read from the
	// kernel image ("" when the image does not say): ImportRun holds the
	// guest's result to them. They stay on the host.
	Cmdline string `json:"-"`
	Release string `json:"-"`
}

// EncodeRun is the measure task's result payload: the run document,
// gzipped (the serial line is slow under emulation).
func EncodeRun(r *run.Run) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if err := run.Export(zw, []*run.Run{r}); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ImportRun turns a measure task's result into the run document to store.
// The guest is not trusted: its run must be the one the step asked for
// (run id, label, configuration), report the command line the host passed
// (in.Cmdline) and the release of the image the host booted (in.Release),
// and verify on the host: the configuration block's verification is
// replaced by bootconfig.VerifyReported's of the guest's reported files and
// command line against the step's configuration, and a boot that does not
// verify there is refused whatever the guest said (ErrNotVerified). The
// lab block is added; the document keeps the guest's environment as the
// guest wrote it.
func ImportRun(payload []byte, in MeasureInput, lab *run.Lab) (run.Doc, error) {
	if in.Cmdline == "" {
		return run.Doc{}, fmt.Errorf("guest result: the host did not record the command line it booted, so the guest's claims cannot be checked")
	}
	zr, err := gzip.NewReader(bytes.NewReader(payload))
	if err != nil {
		return run.Doc{}, fmt.Errorf("guest result: %w", err)
	}
	// Expanded through a limit at the frame cap: a gzip bomb is refused as
	// soon as it passes MaxFrame, never expanded whole.
	data, err := io.ReadAll(io.LimitReader(zr, vm.MaxFrame+1))
	if err != nil {
		return run.Doc{}, fmt.Errorf("guest result: %w", err)
	}
	if len(data) > vm.MaxFrame {
		return run.Doc{}, fmt.Errorf("guest result: the run document expands to more than %d MiB (a frame's cap): refused", vm.MaxFrame>>20)
	}
	docs, err := run.Decode("guest result", data)
	if err != nil {
		return run.Doc{}, err
	}
	if len(docs) != 1 {
		return run.Doc{}, fmt.Errorf("guest result: %d run documents, want 1", len(docs))
	}
	d := docs[0]
	r := d.Run
	q := safetext.Line
	switch {
	case r.ID != in.RunID || r.Label != in.Label:
		return run.Doc{}, fmt.Errorf("guest result: run %s labelled %q, expected %s labelled %q", q(r.ID), q(r.Label), in.RunID, in.Label)
	case r.Config == nil || r.Config.Name != in.Config.Name:
		return run.Doc{}, fmt.Errorf("guest result: run %s has no %s configuration block", r.ID, in.Config.Name)
	case r.Config.Verification == nil || !r.Config.Verification.OK:
		return run.Doc{}, fmt.Errorf("guest result: run %s was measured on a boot that did not verify", r.ID)
	case r.Env == nil:
		return run.Doc{}, fmt.Errorf("guest result: run %s has no environment: the host cannot check what it booted", r.ID)
	case !vm.BootedWith(r.Env.Cmdline.Raw, in.Cmdline):
		return run.Doc{}, fmt.Errorf("guest result: run %s reports the command line %q, but the host booted it with %q: refused (the guest's /init is not the one sectax built, or the kernel rewrote its command line)", r.ID, safetext.Clip(r.Env.Cmdline.Raw, 300), in.Cmdline)
	case r.Config.Verification.Cmdline != strings.TrimSpace(r.Env.Cmdline.Raw):
		return run.Doc{}, fmt.Errorf("guest result: run %s verified the command line %q but reports %q: refused", r.ID, safetext.Clip(r.Config.Verification.Cmdline, 300), safetext.Clip(r.Env.Cmdline.Raw, 300))
	case in.Release != "" && r.Env.Kernel.Release != in.Release:
		return run.Doc{}, fmt.Errorf("guest result: run %s reports kernel %q, but the image the host booted is %s: refused", r.ID, safetext.Clip(r.Env.Kernel.Release, 100), in.Release)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return run.Doc{}, err
	}
	v := bootconfig.VerifyReported(r.Env, in.Config, in.Plan, in.SeenBootIDs, kb)
	if !v.OK {
		return run.Doc{}, fmt.Errorf("guest result: %w: run %s: the guest said its boot verified as %s, the host finds otherwise: %s", vm.ErrNotVerified, r.ID, in.Config.Name, safetext.Clip(strings.Join(v.Reasons, "; "), 1000))
	}
	r.Config = bootconfig.Record(in.Config, v)
	r.Lab = lab
	return d, nil
}
