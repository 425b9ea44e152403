package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/store"
)

func newShowCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one stored run: environment, and each metric's median with its 95% CI",
		Long: `Show one stored run. RUN is a run id, a unique prefix of one, or a label that
holds a single run. --format json prints the sectax.run/v1 document, with
every sample.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			ctx := cmd.Context()
			db, id, err := resolveOne(ctx, g, args[0])
			if err != nil {
				return err
			}
			defer db.Close()
			doc, err := db.Doc(ctx, id)
			if err != nil {
				return err
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(store.WriteDocs(w, []store.Doc{doc}, store.FormatSingle))
			}
			env, err := db.Env(ctx, id)
			if err != nil {
				return finish(err)
			}
			return finish(writeShowText(w, doc.Run, env, store.MeasuringPID(g.DB)))
		},
	}
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

func writeShowText(w io.Writer, r *run.Run, env map[string]any, measuring int) error {
	var b strings.Builder
	get := func(path string) string {
		v, _ := compare.Lookup(env, path)
		max := 256
		if path == "cmdline.raw" {
			max = 4096 // the kernel's own limit is 2048 on x86, 4096 on arm64
		}
		return dash(clip(v, max))
	}
	if r.Lab != nil && r.Lab.Accel == "tcg" {
		fmt.Fprintf(&b, "%s\n\n", compare.TCGHeadline)
	}
	fmt.Fprintf(&b, "run %s\n", clip(r.ID, run.MaxIDBytes))
	fmt.Fprintf(&b, "  label        %s\n", dash(clip(r.Label, run.MaxLabelBytes)))
	status := string(r.Status)
	if r.Status == run.StatusRunning {
		if measuring == 0 {
			status += " (cut short: no sectax run holds the lock; the finished samples are kept)"
		} else {
			status += " (a sectax run is measuring now)"
		}
	}
	fmt.Fprintf(&b, "  status       %s\n", status)
	fmt.Fprintf(&b, "  started      %s\n", fmtTime(r.Started))
	if !r.Finished.IsZero() {
		fmt.Fprintf(&b, "  finished     %s (%s)\n", fmtTime(r.Finished), r.Finished.Sub(r.Started).Round(time.Second))
	}
	fmt.Fprintf(&b, "  suite        %s, engine %s, %d runs, %d warm-up, seed %d\n", dash(clip(r.Suite, 64)), dash(clip(r.Engine, 64)), r.Repetitions, r.Warmup, r.Seed)
	fmt.Fprintf(&b, "  sectax       %s", dash(clip(r.ToolVersion, 64)))
	if r.PerfVersion != "" {
		fmt.Fprintf(&b, ", perf %s", clip(r.PerfVersion, 64))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  host         %s\n", get("hostname"))
	fmt.Fprintf(&b, "  kernel       %s\n", get("kernel.release"))
	fmt.Fprintf(&b, "  mitigations  %s\n", get("mitigation_mode"))
	fmt.Fprintf(&b, "  cmdline      %s\n", get("cmdline.raw"))
	fmt.Fprintf(&b, "  boot         %s\n", get("boot_id"))
	if r.Config != nil {
		fmt.Fprintf(&b, "  config       %s (%s)\n", clip(r.Config.Name, 64), dash(clip(strings.Join(r.Config.Params, " "), 256)))
	}
	if l := r.Lab; l != nil {
		vcpus := "vCPUs"
		if l.VCPUs == 1 {
			vcpus = "vCPU"
		}
		fmt.Fprintf(&b, "  lab          boot %d of %d under QEMU -accel %s, CPU model %s, %d MiB, %d %s, kernel image %s\n",
			l.Boot, l.Boots, clip(l.Accel, 8), clip(l.CPUModel, 64), l.MemoryMiB, l.VCPUs, vcpus, clip(l.KernelImage, 256))
	}
	if c := r.Campaign; c != nil {
		fmt.Fprintf(&b, "  campaign     %s, step %d, boot %d\n", clip(c.ID, run.MaxIDBytes), c.Step, c.Boot)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()

	t := report.NewTable()
	t.Row("workload / metric", "median", "95% CI", "n", "")
	var warnings []string
	for _, res := range r.Results {
		title := res.Workload
		if pk := run.ParamsKey(res.Params); pk != "" {
			title += " " + pk
		}
		if res.Engine != "" && res.Engine != r.Engine {
			title += " (engine " + res.Engine + ")"
		}
		t.Line(clip(title, 512))
		for _, m := range res.Metrics {
			s := stats.Summarize(m.Samples)
			ci := "-"
			if s.HasCI {
				ci = report.Num(s.Lo) + " … " + report.Num(s.Hi)
			}
			median := "-"
			if s.N > 0 {
				median = report.Num(s.Center) + " " + m.Unit
			}
			t.Row("  "+clip(m.Name, 64), clip(median, 96), ci, fmt.Sprint(s.N), clip(string(m.Better), 16)+" is better")
		}
		for _, x := range res.Warnings {
			warnings = append(warnings, clip(res.Workload, 64)+": "+clip(x, 1024))
		}
		for _, x := range res.Failures {
			warnings = append(warnings, clip(res.Workload, 64)+": failed: "+clip(x, 1024))
		}
	}
	if err := t.Write(w, false); err != nil {
		return err
	}
	if len(warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		const maxShown = 100
		for i, x := range warnings {
			if i == maxShown {
				fmt.Fprintf(&b, "  - … and %d more (sectax show --format json has them all)\n", len(warnings)-maxShown)
				break
			}
			fmt.Fprintf(&b, "  - %s\n", x)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
