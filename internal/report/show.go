package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// ShowText is the text of 'sectax show': the run's environment, then
// each metric's median with its interval; measuring is the pid holding
// the store's run lock (0: none).
func ShowText(w io.Writer, r *run.Run, env map[string]any, measuring int) error {
	return plainText(w, func(w io.Writer) error { return showText(w, r, env, measuring) })
}

func showText(w io.Writer, r *run.Run, env map[string]any, measuring int) error {
	var b strings.Builder
	var given strings.Builder // the header's values as stored (writeForeign)
	get := func(path string) string {
		v, _ := compare.Lookup(env, path)
		given.WriteString(v)
		max := 256
		switch path {
		case "cmdline.raw":
			max = 4096 // the kernel's own limit is 2048 on x86, 4096 on arm64
		case "hostname", "kernel.release":
			max = 64 // the kernel's own limit (HOST_NAME_MAX, a utsname field)
		}
		return Dash(Clip(v, max))
	}
	if r.Lab != nil && r.Lab.Accel == "tcg" {
		fmt.Fprintf(&b, "%s\n\n", compare.TCGHeadline)
	}
	given.WriteString(r.ID + r.Label + string(r.Status) + r.Suite + r.Engine + r.ToolVersion + r.PerfVersion)
	if r.Config != nil {
		given.WriteString(r.Config.Name + strings.Join(r.Config.Params, " "))
	}
	if r.Lab != nil {
		given.WriteString(r.Lab.Accel + r.Lab.CPUModel + r.Lab.KernelImage)
	}
	if r.Campaign != nil {
		given.WriteString(r.Campaign.ID)
	}
	fmt.Fprintf(&b, "run %s\n", Clip(r.ID, run.MaxIDBytes))
	fmt.Fprintf(&b, "  label        %s\n", Dash(Clip(r.Label, run.MaxLabelBytes)))
	status := Clip(string(r.Status), 32)
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
	fmt.Fprintf(&b, "  suite        %s, engine %s, %d runs, %d warm-up, seed %d\n", Dash(Clip(r.Suite, 64)), Dash(Clip(r.Engine, 64)), r.Repetitions, r.Warmup, r.Seed)
	fmt.Fprintf(&b, "  sectax       %s", Dash(Clip(r.ToolVersion, 64)))
	if r.PerfVersion != "" {
		fmt.Fprintf(&b, ", perf %s", Clip(r.PerfVersion, 64))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  host         %s\n", get("hostname"))
	fmt.Fprintf(&b, "  kernel       %s\n", get("kernel.release"))
	fmt.Fprintf(&b, "  mitigations  %s\n", get("mitigation_mode"))
	fmt.Fprintf(&b, "  cmdline      %s\n", get("cmdline.raw"))
	fmt.Fprintf(&b, "  boot         %s\n", get("boot_id"))
	if r.Config != nil {
		fmt.Fprintf(&b, "  config       %s (%s)\n", Clip(r.Config.Name, 64), Dash(Clip(strings.Join(r.Config.Params, " "), 256)))
	}
	if l := r.Lab; l != nil {
		vcpus := "vCPUs"
		if l.VCPUs == 1 {
			vcpus = "vCPU"
		}
		fmt.Fprintf(&b, "  lab          boot %d of %d under QEMU -accel %s, CPU model %s, %d MiB, %d %s, kernel image %s\n",
			l.Boot, l.Boots, Clip(l.Accel, 8), Clip(l.CPUModel, 64), l.MemoryMiB, l.VCPUs, vcpus, Clip(l.KernelImage, 256))
	}
	if c := r.Campaign; c != nil {
		fmt.Fprintf(&b, "  campaign     %s, step %d, boot %d\n", Clip(c.ID, run.MaxIDBytes), c.Step, c.Boot)
	}
	// Each "  key  value" line wrapped to TextWidth under its value.
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		key := len("  mitigations  ")
		if !strings.HasPrefix(l, "  ") || len(l) < key {
			writeWrapped(w, l, "", "  ")
			continue
		}
		writeForeign(w, l[key:], given.String(), l[:key], strings.Repeat(" ", key))
	}
	fmt.Fprintln(w)
	return resultsText(w, r)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
