// Package prom renders what sectax knows of a machine in the Prometheus
// text exposition format, for node_exporter's textfile collector: the CPU
// vulnerability state with node_exporter's own label names, the medians of
// the latest stored run, and the tax of the latest on/off comparison with
// its interval and p-value. The text is written by prometheus/common's
// expfmt, families sorted by name and series by labels, without
// timestamps (the textfile collector refuses them).
package prom

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/procfs/sysfs"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// FileName is the textfile the export writes into --textfile-dir.
const FileName = "sectax.prom"

// Vulnerability is one file of /sys/devices/system/cpu/vulnerabilities
// as node_exporter labels it (node_cpu_vulnerabilities_info): codename,
// state ("not affected", "vulnerable", "mitigation", "unknown") and the
// text after the state.
type Vulnerability struct {
	Codename, State, Mitigation string
}

// ReadVulnerabilities reads root/sys/devices/system/cpu/vulnerabilities
// with the same library and rules as node_exporter (procfs's sysfs), so
// that the labels join with node_cpu_vulnerabilities_info. A missing
// directory gives none.
//
// Below a fake root (anything but "/"), procfs would follow a symbolic link
// out of it, so every file it will read is first reached through os.Root,
// which refuses to leave the root, and must be a regular file there (a
// FIFO would block); otherwise nothing is read and the error says which.
func ReadVulnerabilities(root string) ([]Vulnerability, error) {
	if err := confined(root); err != nil {
		return nil, err
	}
	fs, err := sysfs.NewFS(filepath.Join(root, "sys"))
	if err != nil {
		return nil, nil
	}
	m, err := fs.CPUVulnerabilities()
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot read the CPU vulnerabilities: %w", err)
	}
	var out []Vulnerability
	for name, v := range m {
		out = append(out, Vulnerability{Codename: name, State: sysfs.VulnerabilityHumanEncoding[v.State], Mitigation: v.Mitigation})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Codename < out[j].Codename })
	return out, nil
}

const vulnDir = "sys/devices/system/cpu/vulnerabilities"

// confined checks that procfs, reading root/vulnDir by path, reads only
// regular files inside root (see ReadVulnerabilities).
func confined(root string) error {
	if root == "" || filepath.Clean(root) == "/" {
		return nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("--root %s: %w", root, err)
	}
	defer r.Close()
	d, err := r.Open(vulnDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no directory: no vulnerabilities, as on the machine
	}
	if err != nil {
		return fmt.Errorf("cannot read %s below --root %s: %w", vulnDir, root, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("cannot read %s below --root %s: %w", vulnDir, root, err)
	}
	for _, n := range names {
		st, err := r.Stat(vulnDir + "/" + n)
		if err == nil && !st.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
		if err != nil {
			return fmt.Errorf("cannot read %s/%s below --root %s: %w", vulnDir, n, root, err)
		}
	}
	return nil
}

// Input is what the export shows; every part is optional.
type Input struct {
	Vulnerabilities []Vulnerability
	// Mode is the mitigation mode the command line asks for (on, off,
	// custom, unknown); "" leaves the metric out.
	Mode string
	// Latest is the newest stored run with samples.
	Latest *run.Run
	// Tax is the comparison of the "on" side (A) against the "off" side
	// (B); OnRef and OffRef are their references, the label values.
	Tax           *compare.Report
	OnRef, OffRef string
}

// HostRun reports whether a stored run measured this host itself: not a
// run of a QEMU guest (a lab block, whichever campaign booted it).
func HostRun(r *run.Run) bool { return r != nil && r.Lab == nil }

// Accelerator is the value of the accelerator label: kvm or tcg for a run
// measured in a QEMU guest, "none" for one measured on a machine itself.
func Accelerator(r *run.Run) string {
	if r != nil && r.Lab != nil && r.Lab.Accel != "" {
		return r.Lab.Accel
	}
	return "none"
}

// family builds one metric family.
type family struct {
	name, help string
	series     []*dto.Metric
}

func (f *family) add(v float64, labels ...string) {
	m := &dto.Metric{Gauge: &dto.Gauge{Value: &v}}
	for i := 0; i+1 < len(labels); i += 2 {
		m.Label = append(m.Label, &dto.LabelPair{Name: &labels[i], Value: &labels[i+1]})
	}
	f.series = append(f.series, m)
}

// Write renders in as text exposition format. Values that are not finite
// (a tax against a zero median) are left out.
func Write(w io.Writer, in Input) error {
	fams := map[string]*family{}
	fam := func(name, help string) *family {
		if f, ok := fams[name]; ok {
			return f
		}
		f := &family{name: name, help: help}
		fams[name] = f
		return f
	}
	if len(in.Vulnerabilities) > 0 {
		f := fam("sectax_cpu_vulnerability_info", "CPU vulnerability state as /sys/devices/system/cpu/vulnerabilities reports it, labelled as node_exporter's node_cpu_vulnerabilities_info.")
		for _, v := range in.Vulnerabilities {
			f.add(1, "codename", v.Codename, "state", v.State, "mitigation", v.Mitigation)
		}
	}
	if in.Mode != "" {
		fam("sectax_mitigations_mode_info", "Mitigation mode the kernel command line asks for: on, off, custom or unknown.").add(1, "mode", in.Mode)
	}
	if r := in.Latest; r != nil {
		accel := Accelerator(r)
		fam("sectax_latest_run_info", "The newest stored run whose medians sectax_latest_run_median shows; accelerator is kvm or tcg for a run measured in a QEMU guest, none on the machine itself.").
			add(1, "run", r.ID, "label", r.Label, "suite", r.Suite, "engine", r.Engine, "status", string(r.Status), "accelerator", accel)
		if !r.Started.IsZero() {
			fam("sectax_latest_run_start_time_seconds", "Start of the newest stored run, in seconds since the Unix epoch.").
				add(float64(r.Started.UnixNano())/1e9, "run", r.ID)
		}
		med := fam("sectax_latest_run_median", "Median of each metric of each workload in the newest stored run, in the metric's unit.")
		for _, res := range r.Results {
			for _, m := range res.Metrics {
				if len(m.Samples) == 0 {
					continue
				}
				v := stats.Summarize(m.Samples).Center
				if finite(v) {
					med.add(v, "workload", res.Workload, "params", run.ParamsKey(res.Params), "engine", res.Engine,
						"metric", m.Name, "unit", m.Unit, "better", string(m.Better), "accelerator", accel)
				}
			}
		}
	}
	if rep := in.Tax; rep != nil {
		accel := "none"
		if rep.Lab != nil && rep.Lab.Accel != "" {
			accel = rep.Lab.Accel
		}
		side := []string{"on", in.OnRef, "off", in.OffRef, "accelerator", accel}
		verified := 0.0
		if len(rep.A.MitigationMode) == 1 && rep.A.MitigationMode[0] == "on" && len(rep.B.MitigationMode) == 1 && rep.B.MitigationMode[0] == "off" {
			verified = 1
		}
		fam("sectax_tax_verified", "1 when every run of the on side booted with mitigations on and every run of the off side with mitigations=off.").add(verified, side...)
		tax := fam("sectax_tax_percent", "How much slower the workload is with mitigations on than off, in percent of the off side (negative: faster).")
		lo := fam("sectax_tax_percent_lower", "Lower bound of the confidence interval of sectax_tax_percent.")
		hi := fam("sectax_tax_percent_upper", "Upper bound of the confidence interval of sectax_tax_percent.")
		p := fam("sectax_tax_p_value", "Two-sided p-value of the Mann-Whitney U test of the on against the off samples.")
		padj := fam("sectax_tax_p_value_adjusted", "sectax_tax_p_value after compare's correction for multiple testing (Holm over the workloads' primary metrics).")
		for _, wl := range rep.Workloads {
			for _, m := range wl.Metrics {
				t := (m.Speedup - 1) * 100
				if !finite(t) {
					continue
				}
				labels := append(append([]string(nil), side...), "workload", wl.ID, "params", wl.ParamsKey, "metric", m.Name, "unit", m.Unit)
				tax.add(t, labels...)
				if l, h, ok := taxInterval(m); ok {
					lo.add(l, labels...)
					hi.add(h, labels...)
				}
				if m.Test != nil {
					p.add(m.Test.P, labels...)
				}
				if m.PAdjusted != nil {
					padj.add(*m.PAdjusted, labels...)
				}
			}
		}
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	gauge := dto.MetricType_GAUGE
	for _, n := range names {
		f := fams[n]
		if len(f.series) == 0 {
			continue
		}
		sort.SliceStable(f.series, func(i, j int) bool { return labelKey(f.series[i]) < labelKey(f.series[j]) })
		mf := &dto.MetricFamily{Name: &f.name, Help: &f.help, Type: &gauge, Metric: f.series}
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			return err
		}
	}
	return nil
}

// taxInterval is the confidence interval of the tax in percent, from the
// interval of the off/on ratio that compare computes with the U test
// (only when both sides' samples are repetitions).
func taxInterval(m compare.Metric) (lo, hi float64, ok bool) {
	if m.RatioInterval == nil {
		return 0, 0, false
	}
	rlo, rhi := m.RatioInterval.Lo, m.RatioInterval.Hi
	// The ratio is off/on. Lower is better: the tax is on/off − 1;
	// higher is better: off/on − 1.
	if m.Better == run.Lower {
		lo, hi = (1/rhi-1)*100, (1/rlo-1)*100
	} else {
		lo, hi = (rlo-1)*100, (rhi-1)*100
	}
	return lo, hi, finite(lo) && finite(hi)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func labelKey(m *dto.Metric) string {
	var b strings.Builder
	for _, l := range m.Label {
		b.WriteString(l.GetName())
		b.WriteByte('=')
		b.WriteString(l.GetValue())
		b.WriteByte(0)
	}
	return b.String()
}
