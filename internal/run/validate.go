package run

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Limits of a run document. They are far above anything sectax writes and
// keep one hostile document from making list, show or compare use
// gigabytes. docs/format.md states them.
const (
	// MaxDocumentBytes is the largest document (or import file) accepted.
	MaxDocumentBytes = 64 << 20
	// MaxIDBytes and MaxLabelBytes bound a run id and a label.
	MaxIDBytes    = 128
	MaxLabelBytes = 128
	// MaxNameBytes bounds the short names: suite, engine, tool and perf
	// versions, workload ids, parameter keys, metric names and units.
	MaxNameBytes = 128
	// MaxTextBytes bounds one free-text line: a parameter value, a note, a
	// warning or a failure, the CPU list.
	MaxTextBytes = 64 << 10
	// MaxResults is the number of workloads (results) per run.
	MaxResults = 1000
	// MaxMetrics is the number of metrics per result, MaxParams of
	// parameters per result, MaxLines of notes, warnings or failures.
	MaxMetrics = 100
	MaxParams  = 100
	MaxLines   = 10000
	// MaxSamples is the number of samples per metric.
	MaxSamples = 1_000_000
)

// ReservedPrefix starts the names of built-in baselines; no run id or
// label may start with it, or compare could not tell them apart.
const ReservedPrefix = "baseline:"

// InvalidError says which field of a run document is wrong and why.
type InvalidError struct {
	Field string // JSON path: "results[2].metrics[0].better"
	Msg   string
}

func (e *InvalidError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// hostMarkRE is the spelling of a host mark (hostid.MarkLen hex digits).
var hostMarkRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

func invalid(field, format string, a ...any) *InvalidError {
	return &InvalidError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// CheckID checks a run id: present, at most MaxIDBytes, printable UTF-8
// without spaces at its ends, not a baseline name.
func CheckID(id string) error {
	if strings.TrimSpace(id) == "" || id != strings.TrimSpace(id) {
		return fmt.Errorf("missing, empty or padded with spaces")
	}
	return checkRef(id, MaxIDBytes)
}

// CheckLabel checks a label the same way ("" is allowed: no label).
func CheckLabel(label string) error {
	if label == "" {
		return nil
	}
	if err := checkRef(label, MaxLabelBytes); err != nil {
		return err
	}
	if label != strings.TrimSpace(label) {
		return fmt.Errorf("%s is padded with spaces", quote(label))
	}
	return nil
}

func checkRef(s string, max int) error {
	if err := checkText(s, max, false); err != nil {
		return err
	}
	if strings.HasPrefix(s, ReservedPrefix) {
		return fmt.Errorf("%s starts with %q, which names the built-in baselines", quote(s), ReservedPrefix)
	}
	return nil
}

// checkText refuses invalid UTF-8, control characters (newline, tab and
// carriage return too unless multiline), the bidirectional overrides,
// isolates and marks (safetext.Unsafe) and more than max bytes.
func checkText(s string, max int, multiline bool) error {
	if len(s) > max {
		return fmt.Errorf("%d bytes long, more than the limit of %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", quote(s))
	}
	for _, c := range s {
		if multiline && (c == '\n' || c == '\t' || c == '\r') {
			continue
		}
		if unicode.IsControl(c) || c == '\u2028' || c == '\u2029' {
			return fmt.Errorf("%s holds the control character %U", quote(s), c)
		}
		if safetext.Unsafe(c) {
			return fmt.Errorf("%s holds the bidirectional control %U, which reorders what is shown", quote(s), c)
		}
	}
	return nil
}

// quote renders s for an error message: escaped, and cut short.
func quote(s string) string {
	const max = 60
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// Validate checks everything the commands rely on in a run document: the
// schema, the id and label (no control characters, no baseline: prefix,
// within the limits), the times (finished not before started; zero only
// while running), the status, the counts, and every result, metric and
// sample (finite and not negative; the primary, first, metric of a result
// strictly positive, as ratios and geometric means divide by it). Counters
// such as context switches and CPU seconds may be zero. The optional
// blocks are checked too: config (a verified boot whose command line holds
// the configuration's parameters), lab (kvm or tcg, a sha256, a boot within
// its plan; it needs a config), campaign (step and boot from 1, the boot no
// later than the step; it needs a config) and each result's spec_controls
// (a known control and state, each once, every verified task showing the
// expected state). Every text of the environment (env) is one line without
// a control character, as the id and label are.
//
// It is the authority on what a valid document is: import and the spill
// file of a run that could not be stored go through it, and the JSON
// Schema in docs/ is tested against it.
func (r *Run) Validate() error {
	if r.Schema != Schema {
		return invalid("schema", "%s is not %q (a newer sectax wrote it, or it is not a run document)", quote(r.Schema), Schema)
	}
	if err := CheckID(r.ID); err != nil {
		return &InvalidError{"id", err.Error()}
	}
	if err := CheckLabel(r.Label); err != nil {
		return &InvalidError{"label", err.Error()}
	}
	if r.Started.IsZero() {
		return invalid("started", "missing")
	}
	switch r.Status {
	case StatusRunning, StatusComplete, StatusInterrupted, StatusFailed:
	default:
		return invalid("status", "%s is not running, complete, interrupted or failed", quote(string(r.Status)))
	}
	switch {
	case r.Finished.IsZero() && r.Status != StatusRunning:
		return invalid("finished", "missing, but the run is %s", r.Status)
	case !r.Finished.IsZero() && r.Finished.Before(r.Started):
		return invalid("finished", "%s is before started %s", r.Finished.Format("2006-01-02T15:04:05Z07:00"), r.Started.Format("2006-01-02T15:04:05Z07:00"))
	case r.Repetitions <= 0:
		return invalid("runs", "%d: must be at least 1", r.Repetitions)
	case r.Warmup < 0:
		return invalid("warmup", "%d: must not be negative", r.Warmup)
	}
	for field, s := range map[string]string{"suite": r.Suite, "engine": r.Engine, "tool_version": r.ToolVersion, "perf_version": r.PerfVersion} {
		if err := checkText(s, MaxNameBytes, false); err != nil {
			return &InvalidError{field, err.Error()}
		}
	}
	if err := checkText(r.CPUs, MaxTextBytes, false); err != nil {
		return &InvalidError{"cpus", err.Error()}
	}
	if r.HostMark != "" && !hostMarkRE.MatchString(r.HostMark) {
		return invalid("host_mark", "not 32 lower-case hexadecimal digits")
	}
	if err := checkLines("notes", r.Notes); err != nil {
		return err
	}
	if err := validateEnv(r.Env); err != nil {
		return err
	}
	if err := r.Load.validate(); err != nil {
		return err
	}
	if err := r.Config.validate(); err != nil {
		return err
	}
	if err := r.Lab.validate(); err != nil {
		return err
	}
	if err := r.Campaign.validate(); err != nil {
		return err
	}
	// A lab or campaign run was measured under a verified configuration:
	// the matrix and the campaign report group runs by it.
	if r.Config == nil && r.Lab != nil {
		return invalid("config", "missing, but the run has a lab block: every lab boot is verified against its configuration before it is measured")
	}
	if r.Config == nil && r.Campaign != nil {
		return invalid("config", "missing, but the run has a campaign block: every campaign boot is verified against its configuration before it is measured")
	}
	if len(r.Results) > MaxResults {
		return invalid("results", "%d workloads, more than the limit of %d", len(r.Results), MaxResults)
	}
	for i := range r.Results {
		if err := r.Results[i].validate(fmt.Sprintf("results[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func checkLines(field string, lines []string) error {
	if len(lines) > MaxLines {
		return invalid(field, "%d lines, more than the limit of %d", len(lines), MaxLines)
	}
	for i, s := range lines {
		if err := checkText(s, MaxTextBytes, true); err != nil {
			return &InvalidError{fmt.Sprintf("%s[%d]", field, i), err.Error()}
		}
	}
	return nil
}

func (res *Result) validate(p string) error {
	if res.Workload == "" {
		return invalid(p+".workload", "missing")
	}
	if err := checkText(res.Workload, MaxNameBytes, false); err != nil {
		return &InvalidError{p + ".workload", err.Error()}
	}
	if err := checkText(res.Engine, MaxNameBytes, false); err != nil {
		return &InvalidError{p + ".engine", err.Error()}
	}
	if len(res.Params) > MaxParams {
		return invalid(p+".params", "%d parameters, more than the limit of %d", len(res.Params), MaxParams)
	}
	for k, v := range res.Params {
		kp := p + ".params." + k
		if err := checkText(k, MaxNameBytes, false); err != nil {
			return &InvalidError{p + ".params", "key " + err.Error()}
		}
		switch x := v.(type) {
		case string:
			if err := checkText(x, MaxTextBytes, false); err != nil {
				return &InvalidError{kp, err.Error()}
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return invalid(kp, "not a finite number")
			}
		case bool, int, int64, int32, uint, uint64, uint32:
		default:
			return invalid(kp, "must be a string, a number or a boolean")
		}
	}
	if err := checkLines(p+".warnings", res.Warnings); err != nil {
		return err
	}
	if err := checkLines(p+".failures", res.Failures); err != nil {
		return err
	}
	if err := validateSpec(p, res.SpecControls); err != nil {
		return err
	}
	if err := res.Stopping.validate(p); err != nil {
		return err
	}
	if err := res.WarmupDone.validate(p); err != nil {
		return err
	}
	if len(res.Metrics) > MaxMetrics {
		return invalid(p+".metrics", "%d metrics, more than the limit of %d", len(res.Metrics), MaxMetrics)
	}
	names := map[string]bool{}
	for j, m := range res.Metrics {
		mp := fmt.Sprintf("%s.metrics[%d]", p, j)
		switch {
		case m.Name == "":
			return invalid(mp+".name", "missing")
		case names[m.Name]:
			return invalid(mp+".name", "%s appears twice", quote(m.Name))
		case m.Better != Lower && m.Better != Higher:
			return invalid(mp+".better", "%s is not lower or higher", quote(string(m.Better)))
		}
		names[m.Name] = true
		if err := checkText(m.Name, MaxNameBytes, false); err != nil {
			return &InvalidError{mp + ".name", err.Error()}
		}
		if err := checkText(m.Unit, MaxNameBytes, false); err != nil {
			return &InvalidError{mp + ".unit", err.Error()}
		}
		if len(m.Samples) > MaxSamples {
			return invalid(mp+".samples", "%d samples, more than the limit of %d", len(m.Samples), MaxSamples)
		}
		for k, v := range m.Samples {
			sp := fmt.Sprintf("%s.samples[%d]", mp, k)
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return invalid(sp, "not a finite number")
			case v < 0:
				return invalid(sp, "%v is negative; no sectax metric can be", v)
			case v == 0 && j == 0:
				return invalid(sp, "0 in the primary metric %s, which compare divides by; it must be positive", quote(m.Name))
			}
		}
	}
	return nil
}

// validateEnv refuses, in every text of the environment snapshot (the
// hostname, the kernel release and version, the command line, os-release,
// the CPU's names, every vulnerability line and its fields, notes), an
// invalid byte, a control character or more than MaxTextBytes: sectax
// reads them from the machine's own files, where none holds one, and
// every command shows them. The field is named by its JSON path.
func validateEnv(env *sysinfo.Snapshot) error {
	if env == nil {
		return nil
	}
	b, err := json.Marshal(env)
	if err != nil {
		return invalid("env", "cannot be encoded: %v", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return invalid("env", "cannot be decoded: %v", err)
	}
	return walkEnv("env", v)
}

func walkEnv(path string, v any) error {
	switch x := v.(type) {
	case string:
		if err := checkText(x, MaxTextBytes, false); err != nil {
			return &InvalidError{path, err.Error()}
		}
	case []any:
		for i, e := range x {
			if err := walkEnv(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if err := checkText(k, MaxNameBytes, false); err != nil {
				return &InvalidError{path, "key " + err.Error()}
			}
			if err := walkEnv(path+"."+k, x[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks the load readings: finite, non-negative numbers, and
// counters that do not run backwards (a reading is data another machine
// may have written).
func (l *Load) validate() error {
	if l == nil {
		return nil
	}
	for _, x := range []struct {
		name string
		l    *sysinfo.Load
	}{{"load.start", l.Start}, {"load.end", l.End}} {
		if x.l == nil {
			continue
		}
		if x.l.OtherSectax < 0 {
			return invalid(x.name+".other_sectax", "%d: must not be negative", x.l.OtherSectax)
		}
		for name, v := range map[string]*float64{"load1": x.l.Load1, "cpu_s": x.l.CPUSeconds, "steal_s": x.l.StealSeconds} {
			if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
				return invalid(x.name+"."+name, "%v: must be a finite, non-negative number", *v)
			}
		}
	}
	if _, ok := l.StealPct(); !ok && l.Start != nil && l.End != nil && l.Start.StealSeconds != nil && l.End.StealSeconds != nil &&
		l.Start.CPUSeconds != nil && l.End.CPUSeconds != nil && (*l.End.StealSeconds < *l.Start.StealSeconds || *l.End.CPUSeconds < *l.Start.CPUSeconds) {
		return invalid("load.end", "its CPU counters are below the start's: they only grow within one boot")
	}
	return nil
}
