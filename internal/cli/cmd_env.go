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
		Use:   "env",
		Short: "Show this machine and its mitigation state",
		Long: `Show what sectax knows about the machine: the kernel and its command line,
the mitigation mode the command line asks for (on, off, custom, unknown) and
why, every file of /sys/devices/system/cpu/vulnerabilities, the CPU and its
bug and feature flags, SMT, the hypervisor and WSL, this process's
speculation controls, and the rest of the environment a measurement depends
on. Every stored run carries the same snapshot.

The text output starts with one summary line; --format json prints the full
document (the "env" object of a sectax.run/v1 run). With --root DIR the files
are read below DIR (a captured or fake tree) and nothing live is asked.
Files that do not exist are listed as absent, files that cannot be read as
unreadable; neither is an error.`,
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
