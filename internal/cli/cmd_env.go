package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/sysinfo"
)

func newEnvCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "env",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEnv(cmd.Context(), g) },
	}
	addFormatFlag(cmd, report.EnvFormats.List())
	return cmd
}

func runEnv(ctx context.Context, g *Globals) error {
	s, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	return render(g, report.EnvFormats, s, report.Options{})
}

// collectEnv takes the snapshot for --root and maps its errors to exit
// codes: a bad root is a usage error (2), a non-Linux system a runtime
// error (1).
func collectEnv(ctx context.Context, g *Globals) (*sysinfo.Snapshot, error) {
	s, err := sysinfo.CollectAs(ctx, g.Root, Version)
	switch {
	case errors.Is(err, sysinfo.ErrBadRoot):
		return nil, usagef("--root %s: %v; give a directory that holds proc/ and sys/ (or / for this machine)", g.Root, err)
	case errors.Is(err, sysinfo.ErrNeedsLinux):
		return nil, fmt.Errorf("%w (this is %s)", err, runtime.GOOS)
	case err != nil:
		return nil, err
	}
	return s, nil
}
