package cli

import (
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
		Use:   "corpus",
		Short: "Regenerate the corpus of real boots the model is tested against (developers)",
		Long: `Regenerate internal/mitigation/testdata/corpus/boots.jsonl.gz, the real boots
the model's replay test checks Knowledge.Predict against: "corpus fetch DIR"
downloads Debian's kernel images with apt (a sources list of its own, the
system's apt state left alone); "corpus boot" boots kernels x QEMU CPU models
x command lines under TCG and adds what the file lacks. See docs/corpus.md.`,
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	var uri string
	fetch := &cobra.Command{
		Use:   "fetch DIR",
		Short: "Fetch the corpus's kernel images from Debian's archive into DIR (apt, a sources list of its own)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			images, err := proof.FetchCorpusKernels(cmd.Context(), args[0], uri, g.notice)
			if err != nil {
				return err
			}
			for _, p := range images {
				fmt.Fprintln(g.stdout, p)
			}
			return nil
		},
	}
	fetch.Flags().StringVar(&uri, "uri", "http://deb.debian.org/debian", "the Debian archive `URI` (the system's own, from /etc/apt/sources.list.d)")
	var req proof.CorpusRequest
	var kernels []string
	boot := &cobra.Command{
		Use:   "boot --kernel IMAGE... --out FILE",
		Short: "Boot what the corpus FILE lacks under QEMU TCG and add it (resumable)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			ks, err := proof.CorpusKernels(cmd.Context(), kernels)
			if err != nil {
				return err
			}
			if req.Exe, err = os.Executable(); err != nil {
				return err
			}
			req.Kernels, req.Say = ks, g.notice
			start := time.Now()
			n, err := proof.BootCorpus(cmd.Context(), req)
			g.notice("%d new boots in %s", n, time.Since(start).Round(time.Second))
			return err
		},
	}
	f := boot.Flags()
	f.StringArrayVar(&kernels, "kernel", nil, "kernel `IMAGE` (repeatable; its modules in a modules folder beside it, else /lib/modules/RELEASE)")
	f.StringVar(&req.Out, "out", "", "the corpus `FILE` (gzipped JSON lines; what it holds is not booted again)")
	f.StringSliceVar(&req.CPUs, "cpu", nil, "QEMU CPU `MODELS` (default the corpus's twelve)")
	f.StringArrayVar(&req.Lines, "line", nil, "boot only this command `LINE` of the corpus's (repeatable; the default line is always booted)")
	f.IntSliceVar(&req.Threads, "threads", proof.CorpusThreads, "SMT `TOPOLOGIES`, threads per core of the two vCPUs (2, 1), each booted whole in turn")
	f.IntVar(&req.Parallel, "parallel", 2, "boots at once")
	f.IntVar(&req.Limit, "limit", 0, "start at most `N` boots (0: no limit)")
	f.StringVar(&req.QEMU, "qemu", "qemu-system-x86_64", "QEMU `BINARY`")
	cmd.AddCommand(fetch, boot)
	return cmd
}
