package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// WorkloadsText is the text of 'sectax workloads': per workload its
// paths, metrics and parameters in each suite.
func WorkloadsText(w io.Writer, ws []workload.Workload) error {
	for i, wl := range ws {
		in := wl.Info()
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeWrapped(w, in.ID+" — "+in.Title, "", "  ")
		if in.Perf != "" {
			fmt.Fprintf(w, "  perf:     %s\n", in.Perf)
		}
		writeWrapped(w, in.Stresses.Note, "  stresses: ", "            ")
		writeWrapped(w, stressPaths(in.Stresses), "  paths:    ", "            ")
		var ms []string
		for _, m := range in.Metrics {
			ms = append(ms, fmt.Sprintf("%s (%s, %s is better)", m.Name, m.Unit, m.Better))
		}
		writeWrapped(w, strings.Join(ms, ", "), "  metrics:  ", "            ")
		rows := [][]string{{"  param", "quick", "standard", "study", "accepted", "meaning"}}
		for _, p := range in.Params {
			rows = append(rows, []string{"  " + p.Key,
				run.FormatParam(p.ValueFor(workload.Quick)), run.FormatParam(p.ValueFor(workload.Standard)),
				run.FormatParam(p.ValueFor(workload.Study)), acceptedValues(p), p.Help})
		}
		writeTableWrapped(w, rows, lastCells(rows))
	}
	return nil
}

// stressPaths names the kernel paths a workload stresses with the
// knowledge base's labels ("entry/exit, context switch").
func stressPaths(s workload.Stress) string {
	switch {
	case s.Control:
		return "none (negative control)"
	case s.Varies:
		return "depends on the command"
	}
	kb, err := mitigation.KnowledgeBase()
	var out []string
	for _, p := range s.Paths {
		if err == nil {
			p = kb.TagLabel(p)
		}
		out = append(out, p)
	}
	return strings.Join(out, ", ")
}

func acceptedValues(p workload.ParamSpec) string {
	switch {
	case p.IsInt():
		return fmt.Sprintf("%d..%d", p.Min, p.Max)
	case p.Free:
		return "any"
	}
	return strings.Join(p.Choices, "|")
}

type workloadJSON struct {
	ID       string      `json:"id"`
	Title    string      `json:"title"`
	Perf     string      `json:"perf,omitempty"`
	Stresses string      `json:"stresses"`
	Paths    []string    `json:"paths"`
	Control  bool        `json:"control,omitempty"`
	Params   []paramJSON `json:"params"`
	Metrics  []metricDoc `json:"metrics"`
}

type paramJSON struct {
	Key      string   `json:"key"`
	Help     string   `json:"help"`
	Quick    any      `json:"quick"`
	Standard any      `json:"standard"`
	Study    any      `json:"study"`
	Min      *int64   `json:"min,omitempty"`
	Max      *int64   `json:"max,omitempty"`
	Choices  []string `json:"choices,omitempty"`
}

type metricDoc struct {
	Name   string     `json:"name"`
	Unit   string     `json:"unit"`
	Better run.Better `json:"better"`
	Help   string     `json:"help"`
}

// WorkloadsJSON is the JSON of 'sectax workloads'.
func WorkloadsJSON(w io.Writer, ws []workload.Workload) error {
	out := []workloadJSON{}
	for _, wl := range ws {
		in := wl.Info()
		d := workloadJSON{ID: in.ID, Title: in.Title, Perf: in.Perf, Stresses: in.Stresses.Note,
			Paths: append([]string{}, in.Stresses.Paths...), Control: in.Stresses.Control}
		for _, p := range in.Params {
			pj := paramJSON{Key: p.Key, Help: p.Help, Quick: p.ValueFor(workload.Quick),
				Standard: p.ValueFor(workload.Standard), Study: p.ValueFor(workload.Study), Choices: p.Choices}
			if p.IsInt() {
				pj.Min, pj.Max = &p.Min, &p.Max
			}
			d.Params = append(d.Params, pj)
		}
		for _, m := range in.Metrics {
			d.Metrics = append(d.Metrics, metricDoc{m.Name, m.Unit, m.Better, m.Help})
		}
		out = append(out, d)
	}
	return WriteJSON(w, out)
}

// lastCells are the last cells of rows: text sectax wrote itself, its own
// raw form for writeTableWrapped.
func lastCells(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[len(r)-1])
	}
	return out
}
