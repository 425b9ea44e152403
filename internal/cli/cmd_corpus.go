package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/userfile"
)

// newCorpusCmd is the developers' command that regenerates the corpus of
// real boots the model's replay test reads (docs/corpus.md). It is hidden:
// it downloads kernels and boots hundreds of VMs, nothing a user of
// sectax needs; it lives here because the guest's /init must be sectax
// itself (the same binary, its lab tasks registered) and only cli prints.
func newCorpusCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "corpus",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	var uri string
	fetch := &cobra.Command{
		Use:  "fetch DIR",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCorpusFetch(cmd.Context(), g, args[0], uri) },
	}
	fetch.Flags().StringVar(&uri, "uri", "http://deb.debian.org/debian", "the Debian archive `URI` (the system's own, from /etc/apt/sources.list.d)")
	var req proof.CorpusRequest
	var kernels []string
	boot := &cobra.Command{
		Use:  "boot --kernel IMAGE... --out FILE",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCorpusBoot(cmd.Context(), g, req, kernels) },
	}
	f := boot.Flags()
	f.StringArrayVar(&kernels, "kernel", nil, "kernel `IMAGE` (repeatable; its modules in a modules folder beside it, else /lib/modules/RELEASE)")
	f.StringVar(&req.Out, "out", "", "the corpus `FILE` (gzipped JSON lines; what it holds is not booted again)")
	f.StringSliceVar(&req.CPUs, "cpu", nil, "QEMU CPU `MODELS` (default the corpus's twelve)")
	f.StringArrayVar(&req.Lines, "line", nil, "boot only this command `LINE` of the corpus's (repeatable; the default line is always booted)")
	f.IntSliceVar(&req.Threads, "threads", proof.CorpusThreads, "SMT `TOPOLOGIES`, threads per core of the two vCPUs (2, 1), each booted whole in turn")
	f.IntVar(&req.Parallel, "parallel", 2, "`N` boots at once")
	f.IntVar(&req.Limit, "limit", 0, "start at most `N` boots (0: no limit)")
	f.StringVar(&req.QEMU, "qemu", "qemu-system-x86_64", "QEMU `BINARY`")
	cmd.AddCommand(fetch, boot)
	return cmd
}

func runCorpusFetch(ctx context.Context, g *Globals, dir, uri string) error {
	images, err := proof.FetchCorpusKernels(ctx, dir, uri, g.out)
	if err != nil {
		return err
	}
	for _, p := range images {
		fmt.Fprintln(g.stdout, p)
	}
	return nil
}

func runCorpusBoot(ctx context.Context, g *Globals, req proof.CorpusRequest, kernels []string) error {
	if len(kernels) == 0 || req.Out == "" {
		return usagef("corpus boot needs --kernel IMAGE (repeatable) and --out FILE")
	}
	prev, err := userfile.OpenPrevious(req.Out)
	if err != nil {
		return usagef("--out: %v", err)
	}
	if prev != nil {
		defer prev.Close()
		req.Previous = prev
	}
	ks, err := proof.CorpusKernels(ctx, kernels)
	if err != nil {
		return err
	}
	if req.Exe, err = os.Executable(); err != nil {
		return err
	}
	req.Kernels, req.P = ks, g.out
	start := time.Now()
	n, err := proof.BootCorpus(ctx, req)
	g.notice("%d new boots in %s", n, time.Since(start).Round(time.Second))
	return err
}
