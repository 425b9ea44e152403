package cli

import (
	"bytes"
	"context"
	"os"

	"github.com/sectax/sectax/internal/export/prom"
	"github.com/sectax/sectax/internal/store"
)

// promOptions are the flags of `sectax export --format prometheus`.
type promOptions struct {
	textfileDir string
	on, off     string
	// explicit is set when --on or --off was given: then a side that does
	// not resolve is an error, not a quiet omission.
	explicit bool
}

// runExportPrometheus writes the textfile of `sectax export --format
// prometheus`. What is missing (no database yet, no off run yet) is left
// out with a notice; the command fails only on bad input or a database
// it cannot read.
func runExportPrometheus(ctx context.Context, g *Globals, po promOptions, args []string) error {
	if len(args) > 0 {
		return usagef("--format prometheus takes no RUN: it exports the newest run and the tax of --on against --off")
	}
	if po.textfileDir != "" && g.Output != "" {
		return usagef("give --textfile-dir or -o, not both")
	}
	if po.textfileDir != "" {
		if st, err := os.Stat(po.textfileDir); err != nil || !st.IsDir() {
			return usagef("--textfile-dir %s is not a directory; create it or point it at node_exporter's --collector.textfile.directory", po.textfileDir)
		}
	}
	// The vulnerabilities and the mode as env reports them: the snapshot
	// reads the directory and the command line once (through rootfs below
	// a fake root) and classifies them.
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	in := prom.Input{OnRef: po.on, OffRef: po.off, Vulnerabilities: prom.Vulnerabilities(env.Vulnerabilities)}
	if env.Cmdline.Raw != "" {
		in.Mode = string(env.MitigationMode)
	}
	db, err := openStore(ctx, g, false)
	switch {
	case store.IsNoDatabase(err):
		g.notice("no runs stored yet (no database at %s): only the vulnerability state is exported", g.dbShown())
	case err != nil:
		return err
	default:
		defer db.Close()
		skipped, err := in.Stored(ctx, db, po.explicit)
		if err != nil {
			return err
		}
		if skipped != nil {
			g.notice("no tax exported: %v", skipped)
		}
	}
	var buf bytes.Buffer
	if err := prom.Write(&buf, in); err != nil {
		return err
	}
	if po.textfileDir != "" {
		return prom.WriteTextfile(po.textfileDir, buf.Bytes())
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return finish(err)
}
