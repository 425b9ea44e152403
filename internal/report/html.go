package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
)

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

var htmlTmpl = template.Must(template.New("report").Parse(htmlTemplate))

// envRows are the environment properties shown side by side, by display
// name and env JSON path.
var envRows = []struct{ name, path string }{
	{"host name", "hostname"},
	{"operating system", "os_release"},
	{"kernel", "kernel.release"},
	{"mitigations", "mitigation_mode"},
	{"why", "mitigation_mode_reason"},
	{"CPU", "cpu.model_name"},
	{"CPU vendor", "cpu.vendor"},
	{"microcode", "cpu.microcode"},
	{"online CPUs", "cpu.online"},
	{"SMT active", "smt.active"},
	{"memory (bytes)", "memory.total_bytes"},
	{"hypervisor", "hypervisor.vendor"},
	{"WSL version", "wsl.version"},
	{"WSL package", "wsl.wsl_package_version"},
	{"distro", "wsl.distro"},
	{"boot id", "boot_id"},
	{"kernel command line", "cmdline.raw"},
}

type htmlEnvRow struct {
	Name, A, B string
	Differs    bool
	Code       bool
}

type htmlChart struct {
	Title, Alt string
	SVG        template.HTML
}

type htmlMetric struct {
	compare.Metric
	AText, BText, Change, Range, Speedup, P, N string
	Class                                      string
}

type htmlWorkload struct {
	Title    string
	Control  bool
	Metrics  []htmlMetric
	Only     string
	Medians  *htmlChart
	Samples  *htmlChart
	Stresses string
}

type htmlVuln struct {
	Name, A, B, Explain, OneLiner string
}

type htmlVulnRow struct {
	Name, A, B, OneLiner string
	Differs              bool
}

type htmlData struct {
	AllVulns       []htmlVulnRow
	Title          string
	A, B           compare.SideInfo
	ALine, BLine   string
	Legend         string
	Geomean        string
	GeomeanNote    string
	Headline       []htmlWorkload
	Meaning        []string
	Impact         *htmlChart
	Workloads      []htmlWorkload
	OnlyA, OnlyB   []string
	Env            []htmlEnvRow
	CmdlineKnown   bool
	Added, Removed []string
	Vulns          []htmlVuln
	Confounders    []compare.Confounder
	Notes          []string
	Warnings       []string
	CSS            template.CSS
	Alpha          float64
	ConfidencePct  string
}

var (
	svgPrologRe = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
)

// inlineSVG turns a standalone SVG document into markup to inline in HTML:
// no XML prolog, scalable to the page width.
func inlineSVG(doc []byte, alt string) template.HTML {
	s := svgPrologRe.ReplaceAllString(string(doc), "")
	// Liberation Sans is metric-compatible with Arial and Helvetica: name
	// them, and a generic family, for machines without it.
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(alt)+`" `, 1)
	// gonum's SVG is generated markup whose text is HTML-escaped by vgsvg.
	return template.HTML(s)
}

func pct(v float64) string {
	s := fmt.Sprintf("%+.1f%%", v)
	return strings.Replace(s, "-", "−", 1)
}

func verdictClass(m compare.Metric) string {
	switch m.Verdict {
	case compare.VerdictBetter:
		return "better"
	case compare.VerdictWorse:
		return "worse"
	case compare.VerdictUntested:
		return "untested"
	}
	return "same"
}

func sideValues(s compare.Side, path string) string {
	seen := map[string]bool{}
	var out []string
	for i := range s.Runs {
		v, ok := compare.Lookup(s.Env(i), path)
		if ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, " | ")
}

// HTML writes the comparison as one self-contained HTML page: inline CSS
// and SVG charts, nothing fetched from anywhere, printable. The sides give
// the environments shown side by side. Every string from the machine or
// the user is escaped by html/template.
func HTML(w io.Writer, rep *compare.Report, a, b compare.Side) error {
	charts, err := Charts(rep)
	if err != nil {
		return err
	}
	d := htmlData{
		Title: fmt.Sprintf("sectax: %s vs %s", rep.A.Ref, rep.B.Ref),
		A:     rep.A, B: rep.B, ALine: sideLine(rep.A), BLine: sideLine(rep.B),
		Legend: legend(rep), Meaning: Meaning(rep), CSS: template.CSS(htmlCSS),
		Alpha: rep.Alpha, ConfidencePct: fmt.Sprintf("%.0f%%", rep.Confidence*100),
		CmdlineKnown: rep.Env.CmdlineKnown, Added: rep.Env.CmdlineAdded, Removed: rep.Env.CmdlineRemoved,
		Confounders: rep.Env.Confounders, Notes: rep.Notes,
	}
	if rep.Geomean != nil {
		d.Geomean = Speedup(rep.Geomean.Speedup)
		d.GeomeanNote = fmt.Sprintf("geometric mean of the primary metrics' speedups over %d workloads (negative controls excluded): %s",
			rep.Geomean.N, overall(rep.Geomean.Speedup))
	}
	byWorkload := map[int][]Chart{}
	for _, c := range charts {
		if c.Kind == ChartImpact {
			svg, err := c.SVG()
			if err != nil {
				return err
			}
			d.Impact = &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
			continue
		}
		byWorkload[c.Workload] = append(byWorkload[c.Workload], c)
	}
	kb, _ := mitigation.KnowledgeBase()
	for i, wl := range rep.Workloads {
		hw := htmlWorkload{Title: wl.Title(), Control: wl.Control}
		if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
			hw.Only = onlyMetrics(wl)
		}
		if t, ok := workloadTags[wl.ID]; ok && kb != nil {
			hw.Stresses = kb.Tags[t]
		}
		for _, m := range wl.Metrics {
			hw.Metrics = append(hw.Metrics, htmlMetric{Metric: m,
				AText: Value(m.A, m.Unit, rep.A.Published), BText: Value(m.B, m.Unit, rep.B.Published),
				Change: m.Delta, Range: changeInterval(rep, m), Speedup: Speedup(m.Speedup), P: P(m), N: N(m),
				Class: verdictClass(m)})
		}
		for _, c := range byWorkload[i] {
			svg, err := c.SVG()
			if err != nil {
				return err
			}
			hc := &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
			if c.Kind == ChartMedians {
				hw.Medians = hc
			} else {
				hw.Samples = hc
			}
		}
		head := hw
		if len(head.Metrics) > 0 {
			head.Metrics = head.Metrics[:1]
		}
		d.Headline = append(d.Headline, head)
		d.Workloads = append(d.Workloads, hw)
	}
	for _, u := range rep.OnlyA {
		d.OnlyA = append(d.OnlyA, u.String())
	}
	for _, u := range rep.OnlyB {
		d.OnlyB = append(d.OnlyB, u.String())
	}
	for _, r := range envRows {
		va, vb := sideValues(a, r.path), sideValues(b, r.path)
		if va == "" && vb == "" {
			continue
		}
		d.Env = append(d.Env, htmlEnvRow{Name: r.name, A: orDash(va), B: orDash(vb),
			Differs: va != "" && vb != "" && va != vb, Code: r.path == "cmdline.raw"})
	}
	if rep.A.Published || rep.B.Published {
		d.Env = append([]htmlEnvRow{{Name: "published as", A: orDash(rep.A.Environment), B: orDash(rep.B.Environment)},
			{Name: "source", A: orDash(rep.A.Source), B: orDash(rep.B.Source)}}, d.Env...)
	}
	for _, v := range rep.Env.Vulnerabilities {
		from, to := v.A, v.B
		if from == compare.Absent {
			from = ""
		}
		if to == compare.Absent {
			to = ""
		}
		hv := htmlVuln{Name: v.Name, A: v.A, B: v.B, Explain: mitigation.ExplainChange(v.Name, from, to)}
		hv.OneLiner, _ = mitigation.OneLiner(v.Name)
		if _, rest, ok := strings.Cut(hv.Explain, " — "); ok {
			hv.Explain = rest
		}
		d.Vulns = append(d.Vulns, hv)
	}
	d.AllVulns = allVulns(a, b)
	for _, x := range rep.Warnings {
		d.Warnings = append(d.Warnings, x.Message)
	}
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, d); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// sideVulns returns the raw line of each vulnerability file of the first
// run of s that lists them, and the names in order.
func sideVulns(s compare.Side) (map[string]string, []string) {
	for i := range s.Runs {
		list, ok := s.Env(i)["vulnerabilities"].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		out := map[string]string{}
		var names []string
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			if name == "" {
				continue
			}
			if _, dup := out[name]; dup {
				continue
			}
			raw, _ := m["raw"].(string)
			if raw == "" {
				raw, _ = m["state"].(string)
			}
			out[name] = raw
			names = append(names, name)
		}
		return out, names
	}
	return nil, nil
}

// allVulns lists every vulnerability file of either side with what the
// knowledge base says about it.
func allVulns(a, b compare.Side) []htmlVulnRow {
	va, na := sideVulns(a)
	vb, nb := sideVulns(b)
	if va == nil && vb == nil {
		return nil
	}
	seen := map[string]bool{}
	var names []string
	for _, n := range append(na, nb...) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var rows []htmlVulnRow
	for _, n := range names {
		ra, oka := va[n]
		rb, okb := vb[n]
		r := htmlVulnRow{Name: n, A: orDash(ra), B: orDash(rb), Differs: oka && okb && ra != rb}
		if va == nil {
			r.A = "(not recorded)"
		}
		if vb == nil {
			r.B = "(not recorded)"
		}
		r.OneLiner, _ = mitigation.OneLiner(n)
		rows = append(rows, r)
	}
	return rows
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
