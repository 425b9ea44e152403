// Package prom renders what sectax knows of a machine in the Prometheus
// text exposition format, for node_exporter's textfile collector: the CPU
// vulnerability state with node_exporter's own label names, the medians of
// the latest stored run, and the tax of the latest on/off comparison with
// its interval and p-value. The text is written by prometheus/common's
// expfmt, families sorted by name and series by labels, without
// timestamps (the textfile collector refuses them).
package prom

import (
	"io"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/procfs/sysfs"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
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

// Vulnerabilities labels the vulnerabilities sysinfo read (the snapshot's,
// classified by mitigation: the one reading of the directory, so an export
// never disagrees with sectax env) as node_exporter labels
// node_cpu_vulnerabilities_info, so that the series join: the state in
// procfs's human encoding and, as the mitigation, the file's text after
// its verdict ("Mitigation: ", "Vulnerable: ", "Unknown: "). A file that
// could not be read is "unknown" with sysinfo's note as its text.
func Vulnerabilities(vs []mitigation.Vulnerability) []Vulnerability {
	var out []Vulnerability
	for _, v := range vs {
		out = append(out, Vulnerability{Codename: v.Name, State: humanState[v.State], Mitigation: verdictDetail(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Codename < out[j].Codename })
	return out
}

// humanState is sysfs.VulnerabilityHumanEncoding for mitigation's states.
var humanState = map[mitigation.State]string{
	mitigation.NotAffected: sysfs.VulnerabilityHumanEncoding[sysfs.VulnerabilityStateNotAffected],
	mitigation.Mitigated:   sysfs.VulnerabilityHumanEncoding[sysfs.VulnerabilityStateMitigation],
	mitigation.Vulnerable:  sysfs.VulnerabilityHumanEncoding[sysfs.VulnerabilityStateVulnerable],
	mitigation.Unknown:     sysfs.VulnerabilityHumanEncoding[sysfs.VulnerabilityStateUnknown],
}

// verdictDetail is v's text after its verdict word, as node_exporter's
// mitigation label has it (procfs: the fields after the first, joined by
// one space; nothing after "Not affected"; a line without a verdict
// whole).
func verdictDetail(v mitigation.Vulnerability) string {
	s := strings.TrimSpace(v.Raw)
	if s == "" {
		return v.Mitigation // unreadable: sysinfo says why
	}
	low := strings.ToLower(s)
	if strings.HasPrefix(low, "not affected") {
		return ""
	}
	for _, verdict := range []string{"vulnerable", "mitigation", "unknown"} {
		if strings.HasPrefix(low, verdict) {
			return strings.Join(strings.Fields(s)[1:], " ")
		}
	}
	return s
}

// Input is what the export shows; every part is optional.
type Input struct {
	Vulnerabilities []Vulnerability
	// Mode is the mitigation mode the command line asks for (on, off,
	// custom, unknown); "" leaves the metric out.
	Mode string
	// Latest is the newest stored run with samples.
	Latest *run.Run
	// Tax is the comparison of the "on" side (A, the baseline) and the
	// "off" side (B), as `sectax compare ON OFF` makes it; OnRef and
	// OffRef are their references, the label values.
	Tax           *compare.Comparison
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
		// A label value comes from a file below --root or a stored run:
		// one safe line of UTF-8 (safetext.Line: promtool rejects invalid
		// UTF-8, a terminal acts on control characters); expfmt escapes
		// the backslash and the quote as the exposition format says.
		labels[i+1] = safetext.Line(labels[i+1])
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
	if c := in.Tax; c != nil && len(c.Comparisons) == 1 {
		rep := c.Comparisons[0]
		accel := "none"
		if c.Lab != nil && c.Lab.Accel != "" {
			accel = c.Lab.Accel
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
		for _, r := range c.Rows {
			m := r.Sides[0]
			if m == nil {
				continue
			}
			t := (m.Speedup - 1) * 100
			if !finite(t) {
				continue
			}
			labels := append(append([]string(nil), side...), "workload", r.Workload.ID, "params", r.Workload.ParamsKey, "metric", m.Name, "unit", m.Unit)
			tax.add(t, labels...)
			if l, h, ok := taxInterval(*m); ok {
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
