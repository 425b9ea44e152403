package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// The format registry: the one place that maps a --format value to its
// renderer and its one-line description, for each model (pprof's table).
// A command's --format help, completion and check come from its model's
// table (Formats.List); Render lays the model out.

// Format is one --format value and what it writes, in a few words.
type Format struct {
	Name, Desc string
}

// FormatList are the --format values of a command, in the order its help
// lists them; the first is the default.
type FormatList []Format

// Names are the accepted formats.
func (l FormatList) Names() []string {
	names := make([]string, len(l))
	for i, f := range l {
		names[i] = f.Name
	}
	return names
}

// Check refuses a format the list does not hold (a usage error, in the one
// wording of that mistake: exit.Choose).
func (l FormatList) Check(name string) error { return exit.Choose("--format", name, l.Names()...) }

// Usage is --format's help, the table one format a line (pflag indents
// the lines under the first):
//
//	output format:
//	  text  a table for the terminal
//	  json  the sectax.run/v1 document
func (l FormatList) Usage() string {
	width := 0
	for _, f := range l {
		width = max(width, len(f.Name))
	}
	var b strings.Builder
	b.WriteString("output format:")
	for _, f := range l {
		fmt.Fprintf(&b, "\n  %-*s  %s", width, f.Name, f.Desc)
	}
	return b.String()
}

// Renderer lays out a model v in one format.
type Renderer[T any] func(w io.Writer, v T, opt Options) error

// Formats are the formats of one model: its table, and a renderer each.
type Formats[T any] struct {
	list   FormatList
	render map[string]Renderer[T]
}

// format is one entry of a registry.
type format[T any] struct {
	name, desc string
	render     Renderer[T]
}

func formats[T any](fs ...format[T]) *Formats[T] {
	r := &Formats[T]{render: map[string]Renderer[T]{}}
	for _, f := range fs {
		r.list = append(r.list, Format{f.name, f.desc})
		r.render[f.name] = f.render
	}
	return r
}

// List is the model's table of formats (a copy).
func (r *Formats[T]) List() FormatList { return slices.Clone(r.list) }

// Names are the accepted formats.
func (r *Formats[T]) Names() []string { return r.list.Names() }

// Check refuses a format the model has no renderer for (a usage error).
func (r *Formats[T]) Check(name string) error { return r.list.Check(name) }

// Render lays v out in the named format, its text opt.Width wide (0:
// w's width, WithWidth, else TextWidth).
func (r *Formats[T]) Render(w io.Writer, name string, v T, opt Options) error {
	f, ok := r.render[name]
	if !ok {
		return r.Check(name)
	}
	return f(WithWidth(w, opt.Width), v, opt)
}

// The descriptions shared by several tables.
const (
	descText = "a table for the terminal"
	descMD   = "Markdown, for an issue or a post"
	descHTML = "one self-contained page"
)

// ComparisonFormats are the renderings of a comparison (sectax compare,
// campaign report).
var ComparisonFormats = formats(
	format[*compare.Comparison]{"text", descText, Text},
	format[*compare.Comparison]{"md", descMD, Markdown},
	format[*compare.Comparison]{"json", "a sectax.compare/v3 document", plain(JSON)},
	format[*compare.Comparison]{"csv", "a row per side, workload and metric", plain(CSV)},
	format[*compare.Comparison]{"benchfmt", "the Go benchmark format, for benchstat", plain(Benchfmt)},
	format[*compare.Comparison]{"html", descHTML + " with charts", plain(HTML)},
)

// AttributionFormats are the renderings of an attribution (sectax
// attribute report).
var AttributionFormats = formats(
	format[*attribute.Attribution]{"text", descText, plain(AttributionText)},
	format[*attribute.Attribution]{"md", descMD, plain(AttributionMarkdown)},
	format[*attribute.Attribution]{"json", "the attribution as JSON", plain(AttributionJSON)},
	format[*attribute.Attribution]{"html", descHTML + " with waterfalls", plain(AttributionHTML)},
)

// FleetFormats are the renderings of `sectax fleet`. Host, CPU and kernel
// names come from stored runs (imports, other hosts): every format
// escapes them.
var FleetFormats = formats(
	format[*fleet.Report]{"text", descText, plain(fleetText)},
	format[*fleet.Report]{"md", descMD, plain(fleetMarkdown)},
	format[*fleet.Report]{"json", "the fleet as JSON", func(w io.Writer, rep *fleet.Report, _ Options) error { return WriteJSON(w, rep) }},
	format[*fleet.Report]{"html", descHTML, plain(fleetHTML)},
)

// DecisionFormats are the renderings of `sectax decide`.
var DecisionFormats = formats(
	format[*decide.Decision]{"text", "the options and the recommendation", plain(DecisionText)},
	format[*decide.Decision]{"md", descMD, plain(DecisionMarkdown)},
	format[*decide.Decision]{"json", "the decision as JSON", plain(DecisionJSON)},
)

// ProbesFormats are the renderings of `sectax attribute probes`.
var ProbesFormats = formats(
	format[*attribute.ProbeReport]{"text", descText, plain(ProbesText)},
	format[*attribute.ProbeReport]{"md", descMD, plain(ProbesMarkdown)},
	format[*attribute.ProbeReport]{"json", "the probes' taxes as JSON", plain(ProbesJSON)},
)

// plain is a renderer that takes no options.
func plain[T any](f func(io.Writer, T) error) Renderer[T] {
	return func(w io.Writer, v T, _ Options) error { return f(w, v) }
}

// The models shown as text or as their JSON document.
var (
	// AdviceFormats are the renderings of `sectax advise`.
	AdviceFormats = textOrJSON("the steps and what is given up", "the advice as JSON", plain(AdviceText))
	// VerificationFormats are the renderings of `sectax verify`.
	VerificationFormats = textOrJSON("the checks and what to do", "the verification as JSON", plain(VerificationText))
	// BaselinesFormats are the renderings of `sectax baselines`.
	BaselinesFormats = textOrJSON("each dataset and its figures", "the datasets as JSON", plain(BaselinesText))
	// EnvFormats are the renderings of `sectax env`.
	EnvFormats = textOrJSON("a summary line, then each part", "the env object of a sectax.run/v1 run", plain(EnvText))
	// ListFormats are the renderings of `sectax list` (text in colour
	// when Options.Color).
	ListFormats = textOrJSON(descText, "the runs as JSON", func(w io.Writer, rows []ListRow, opt Options) error { return ListText(w, rows, opt.Color) })
	// WorkloadsFormats are the renderings of `sectax workloads`.
	WorkloadsFormats = formats(
		format[[]workload.Workload]{"text", descText, plain(WorkloadsText)},
		format[[]workload.Workload]{"json", "the workloads as JSON", plain(WorkloadsJSON)},
	)
	// WSLConfigFormats are the renderings of `sectax wslconfig show`.
	WSLConfigFormats = textOrJSON("the line and where it comes from", "the same as JSON", plain(WSLConfigText))
	// PlanFormats are the renderings of `sectax attribute plan`.
	PlanFormats = formats(
		format[*attribute.Design]{"text", "the mitigations and configurations", plain(PlanText)},
		format[*attribute.Design]{"json", "the plan as JSON", plain(PlanJSON)},
	)
	// RunFormats are the renderings of a run measured here (`sectax run`):
	// its table, or its sectax.run/v1 document.
	RunFormats = textOrJSON(descText, "the sectax.run/v1 document", plain(RunText))
	// CrosscheckFormats are the renderings of `sectax crosscheck`.
	CrosscheckFormats = formats(
		format[*run.Run]{"text", "both engines' medians and their ratio", plain(CrosscheckText)},
		format[*run.Run]{"json", "the crosscheck as JSON", plain(CrosscheckJSON)},
	)
	// CampaignPreviewFormats are the renderings of `sectax campaign start
	// --dry-run`.
	CampaignPreviewFormats = textOrJSON("the steps and every change", "the plan as JSON", plain(CampaignPreview))
	// LabPreviewFormats are the renderings of `sectax lab --dry-run`.
	LabPreviewFormats = textOrJSON("the boots in order", "the plan as JSON", plain(LabPreview))
	// LabMatrixFormats are the renderings of `sectax lab`.
	LabMatrixFormats = textOrJSON("the taxes per kernel and configuration", "the matrix as JSON", plain(LabMatrix))
	// CampaignStatusFormats are the renderings of `sectax campaign status`.
	CampaignStatusFormats = formats(
		format[*campaign.Status]{"text", "where the campaign stands", plain(CampaignStatusText)},
		format[*campaign.Status]{"json", "the status as JSON", plain(CampaignStatusJSON)},
	)
)

// textOrJSON are the formats of a model laid out by text, or written as
// its JSON document.
func textOrJSON[T any](textDesc, jsonDesc string, text Renderer[T]) *Formats[T] {
	return formats(
		format[T]{"text", textDesc, text},
		format[T]{"json", jsonDesc, func(w io.Writer, v T, _ Options) error { return WriteJSON(w, v) }},
	)
}

// The formats of the commands that lay out their model themselves (show,
// export): their table, for --format's help and check.
var (
	// ShowFormats are the renderings of `sectax show`.
	ShowFormats = FormatList{{"text", "the environment and each metric's median"}, {"json", "the sectax.run/v1 document, every sample"}}
	// ExportFormats are the renderings of `sectax export`.
	ExportFormats = FormatList{{"json", "an array of documents"}, {"jsonl", "one document per line"}, {"prometheus", "node_exporter textfile"}}
)
