package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// BenchfmtConfig are the configuration keys each result carries.
var BenchfmtConfig = []string{"label", "mitigations", "kernel"}

// benchUnit maps a metric to a benchfmt unit. Units must differ within a
// result line, so seconds and percentages carry the metric's name
// ("total-sec", "cpu-pct"); µs/op becomes Go's own sec/op so that
// benchstat scales and orders it as it does for Go benchmarks.
func benchUnit(m run.Metric) (unit string, scale float64) {
	base := strings.ReplaceAll(m.Name, "_", "-")
	switch {
	case m.Unit == "µs/op" || m.Unit == "us/op":
		return "sec/op", 1e-6
	case m.Unit == "ns/op":
		return "sec/op", 1e-9
	case m.Unit == "ops/s":
		return "ops/s", 1
	case m.Unit == "s":
		return strings.TrimSuffix(base, "-s") + "-sec", 1
	case m.Unit == "%":
		return strings.TrimSuffix(base, "-pct") + "-pct", 1
	}
	return base, 1
}

// nameClean keeps a name component one field of one benchmark name.
var nameClean = strings.NewReplacer(" ", "_", "\t", "_", "\n", "_", "\r", "_", "/", "∕")

// benchName is "BenchmarkWORKLOAD/key=value/…", with spaces and slashes in
// values replaced so that the name stays one field.
func benchName(res *run.Result) string {
	keys := make([]string, 0, len(res.Params))
	for k := range res.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	clean := nameClean
	b.WriteString(clean.Replace(res.Workload))
	for _, k := range keys {
		fmt.Fprintf(&b, "/%s=%s", clean.Replace(k), clean.Replace(run.FormatParam(res.Params[k])))
	}
	return termSafe(b.String())
}

// Benchfmt writes every sample of every side (the baseline first) in the
// Go benchmark format: one result line per repetition (a published figure
// is one line), with label, mitigations and kernel as configuration keys,
// after the conclusion as a comment. Compare the sides with: benchstat
// -col label FILE, which shows a column per side, the first as its base
// (add -ignore kernel,mitigations when the kernels differ, or the sides
// fall into separate tables).
func Benchfmt(w io.Writer, c *compare.Comparison) error {
	if _, err := fmt.Fprintf(w, "# sectax compare %s: %s\n", termSafe(strings.Join(c.Sides(), " vs ")), Headlined(c.Headline, conclusionOf(c))); err != nil {
		return err
	}
	return benchSamples(w, c.Inputs)
}

// benchSamples writes the samples of the sides, after a comment that says
// how to read them.
func benchSamples(w io.Writer, sides []compare.Side) error {
	if _, err := fmt.Fprintf(w, "# sectax samples in the Go benchmark format; compare with: benchstat -col label -ignore kernel,mitigations FILE\n"); err != nil {
		return err
	}
	// One result line per sample: 4·10^5 lines at 10^5 samples a side,
	// each a write of its own without the buffer.
	buf := bufio.NewWriterSize(w, 256<<10)
	bw := benchfmt.NewWriter(buf)
	for _, s := range sides {
		for i, r := range s.Runs {
			env := s.Env(i)
			cfg := map[string]string{"label": s.Ref}
			if v, ok := compare.Lookup(env, "mitigation_mode"); ok {
				cfg["mitigations"] = v
			}
			if v, ok := compare.Lookup(env, "kernel.release"); ok {
				cfg["kernel"] = v
			}
			for ri := range r.Results {
				res := &r.Results[ri]
				if err := writeResult(buf, bw, cfg, res); err != nil {
					return fmt.Errorf("run %s: %w", r.ID, err)
				}
			}
		}
	}
	return buf.Flush()
}

// writeResult writes one result line per repetition of res: the first
// through bw, which writes the configuration lines that changed before it;
// the others, whose configuration is the same, straight into buf, as bw
// would write them ("Benchmark<name> 1 <value> <unit>…", each value as
// %v prints it), without its fmt.Fprintf per value.
func writeResult(buf *bufio.Writer, bw *benchfmt.Writer, cfg map[string]string, res *run.Result) error {
	n := 0
	for _, m := range res.Metrics {
		n = max(n, len(m.Samples))
	}
	name := benchfmt.Name(benchName(res))
	var config []benchfmt.Config
	for _, k := range BenchfmtConfig {
		if v, ok := cfg[k]; ok {
			config = append(config, benchfmt.Config{Key: k, Value: []byte(termSafe(strings.ReplaceAll(v, "\n", " "))), File: true})
		}
	}
	// The units of the metrics, once per result rather than per line.
	units := make([]string, len(res.Metrics))
	scales := make([]float64, len(res.Metrics))
	seen := map[string]bool{}
	for i, m := range res.Metrics {
		unit, scale := benchUnit(m)
		unit = termSafe(unit) // a stored unit may hold anything
		if seen[unit] {
			unit = strings.ReplaceAll(m.Name, "_", "-") + "-" + unit
		}
		seen[unit] = true
		units[i], scales[i] = unit, scale
	}
	br := &benchfmt.Result{Name: name, Iters: 1, Config: config}
	prefix := []byte("Benchmark" + string(name) + " 1")
	var line []byte
	for rep := 0; rep < n; rep++ {
		br.Values = br.Values[:0]
		for i, m := range res.Metrics {
			if rep >= len(m.Samples) {
				continue
			}
			// Round away float noise, of the scaling too (2.0999999999999997e-07).
			v, _ := strconv.ParseFloat(strconv.FormatFloat(m.Samples[rep]*scales[i], 'g', 12, 64), 64)
			br.Values = append(br.Values, benchfmt.Value{Value: v, Unit: units[i]})
		}
		if rep == 0 {
			if err := bw.Write(br); err != nil {
				return err
			}
			continue
		}
		line = append(line[:0], prefix...)
		for _, v := range br.Values {
			line = append(line, ' ')
			line = strconv.AppendFloat(line, v.Value, 'g', -1, 64)
			line = append(line, ' ')
			line = append(line, v.Unit...)
		}
		line = append(line, '\n')
		if _, err := buf.Write(line); err != nil {
			return err
		}
	}
	return nil
}
