// Package baseline holds published datasets that runs can be compared
// with (`sectax compare on baseline:study-wsl3-on`): embedded JSON, one file
// per dataset, each with its source and environment. Their values are
// single published figures: they have no samples, so no confidence
// interval and no significance test.
package baseline

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// Prefix marks a baseline in a compare argument: "baseline:NAME".
const Prefix = "baseline:"

//go:embed data/*.json
var dataFS embed.FS

// Dataset is one published set of figures.
type Dataset struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Label is the side of the study it is ("on", "off").
	Label string `json:"label"`
	// Source says where the figures were published.
	Source string `json:"source"`
	// Environment describes the machine in words.
	Environment string `json:"environment"`
	// Env holds what is known of the machine under the names of the
	// `sectax env --format json` document (kernel.release, cmdline.raw,
	// mitigation_mode, cpu.online, …), so that compare can diff it.
	Env     map[string]any `json:"env"`
	Results []Result       `json:"results"`
}

// Result is the published figures of one workload.
type Result struct {
	Workload string         `json:"workload"`
	Params   map[string]any `json:"params"`
	// Command is what the source ran.
	Command string   `json:"command"`
	Metrics []Figure `json:"metrics"`
}

// Figure is one published value.
type Figure struct {
	Name   string     `json:"name"`
	Unit   string     `json:"unit"`
	Better run.Better `json:"better"`
	Value  float64    `json:"value"`
	// Approx marks a value the source gives as approximate or that is
	// derived from other published figures; Note says how.
	Approx bool   `json:"approx,omitempty"`
	Note   string `json:"note,omitempty"`
}

// All returns every dataset, sorted by name.
func All() ([]*Dataset, error) {
	ents, err := dataFS.ReadDir("data")
	if err != nil {
		return nil, err
	}
	var out []*Dataset
	for _, e := range ents {
		b, err := dataFS.ReadFile("data/" + e.Name())
		if err != nil {
			return nil, err
		}
		d, err := parse(e.Name(), b)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func parse(file string, b []byte) (*Dataset, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Dataset
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", file, err)
	}
	if d.Name+".json" != file {
		return nil, fmt.Errorf("baseline %s: name %q does not match the file", file, d.Name)
	}
	for i, r := range d.Results {
		if r.Workload == "" || len(r.Metrics) == 0 {
			return nil, fmt.Errorf("baseline %s: results[%d]: workload and metrics are required", file, i)
		}
		for j, m := range r.Metrics {
			if m.Name == "" || m.Unit == "" || (m.Better != run.Lower && m.Better != run.Higher) ||
				!(m.Value > 0) || math.IsInf(m.Value, 0) {
				return nil, fmt.Errorf("baseline %s: results[%d].metrics[%d]: name, unit, better and a positive value are required", file, i, j)
			}
		}
	}
	return &d, nil
}

// Get returns the dataset called name (with or without the "baseline:"
// prefix). An unknown name is an error that lists the known ones.
func Get(name string) (*Dataset, error) {
	name = strings.TrimPrefix(name, Prefix)
	all, err := All()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range all {
		if d.Name == name {
			return d, nil
		}
		names = append(names, Prefix+d.Name)
	}
	return nil, &UnknownError{Name: name, Known: names}
}

// UnknownError says that no dataset has the name; Known lists them.
type UnknownError struct {
	Name  string
	Known []string
}

// ExitKind says that naming an unknown baseline is a usage error.
func (e *UnknownError) ExitKind() exit.Kind { return exit.Usage }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no baseline called %q; known: %s", e.Name, strings.Join(e.Known, ", "))
}

// Run returns the dataset as a run document, each figure a single
// sample, so that the reports that render runs render it too.
func (d *Dataset) Run() *run.Run {
	r := &run.Run{Schema: run.Schema, ID: Prefix + d.Name, Label: d.Label, Status: run.StatusComplete,
		Suite: "published", ToolVersion: "published figures"}
	for _, res := range d.Results {
		rr := run.Result{Workload: res.Workload, Params: res.Params}
		for _, m := range res.Metrics {
			rr.Metrics = append(rr.Metrics, run.Metric{Name: m.Name, Unit: m.Unit, Better: m.Better, Samples: []float64{m.Value}})
		}
		r.Results = append(r.Results, rr)
	}
	return r
}
