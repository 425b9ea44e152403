package report

import (
	"io"
	"slices"

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
// renderer, for each model that has several. A command asks its model's
// Formats for the flag's help, Check for the value, and Render to lay the
// model out.

// Renderer lays out a model v in one format.
type Renderer[T any] func(w io.Writer, v T, opt Options) error

// Formats are the formats of one model, in the order the help lists them.
type Formats[T any] struct {
	names  []string
	render map[string]Renderer[T]
}

// format is one entry of a registry.
type format[T any] struct {
	name   string
	render Renderer[T]
}

func formats[T any](fs ...format[T]) *Formats[T] {
	r := &Formats[T]{render: map[string]Renderer[T]{}}
	for _, f := range fs {
		r.names = append(r.names, f.name)
		r.render[f.name] = f.render
	}
	return r
}

// Names are the accepted formats.
func (r *Formats[T]) Names() []string { return slices.Clone(r.names) }

// Check refuses a format the model has no renderer for (a usage error).
func (r *Formats[T]) Check(name string) error { return CheckFormat(name, r.names...) }

// Render lays v out in the named format, its text opt.Width wide (0:
// w's width, WithWidth, else TextWidth).
func (r *Formats[T]) Render(w io.Writer, name string, v T, opt Options) error {
	f, ok := r.render[name]
	if !ok {
		return r.Check(name)
	}
	return f(WithWidth(w, opt.Width), v, opt)
}

// CheckFormat refuses a --format value that is not among accepted, in the
// one wording of that mistake, exit.Choose (also for the commands whose models have
// one renderer and a JSON document).
func CheckFormat(name string, accepted ...string) error {
	return exit.Choose("--format", name, accepted...)
}

// ComparisonFormats are the renderings of a comparison (sectax compare,
// campaign report).
var ComparisonFormats = formats(
	format[*compare.Comparison]{"text", Text},
	format[*compare.Comparison]{"md", Markdown},
	format[*compare.Comparison]{"json", plain(JSON)},
	format[*compare.Comparison]{"csv", plain(CSV)},
	format[*compare.Comparison]{"benchfmt", plain(Benchfmt)},
	format[*compare.Comparison]{"html", plain(HTML)},
)

// AttributionFormats are the renderings of an attribution (sectax
// attribute report).
var AttributionFormats = formats(
	format[*attribute.Attribution]{"text", plain(AttributionText)},
	format[*attribute.Attribution]{"md", plain(AttributionMarkdown)},
	format[*attribute.Attribution]{"json", plain(AttributionJSON)},
	format[*attribute.Attribution]{"html", plain(AttributionHTML)},
)

// FleetFormats are the renderings of `sectax fleet`. Host, CPU and kernel
// names come from stored runs (imports, other hosts): every format
// escapes them.
var FleetFormats = formats(
	format[*fleet.Report]{"text", plain(fleetText)},
	format[*fleet.Report]{"md", plain(fleetMarkdown)},
	format[*fleet.Report]{"json", func(w io.Writer, rep *fleet.Report, _ Options) error { return WriteJSON(w, rep) }},
	format[*fleet.Report]{"html", plain(fleetHTML)},
)

// DecisionFormats are the renderings of `sectax decide`.
var DecisionFormats = formats(
	format[*decide.Decision]{"text", plain(DecisionText)},
	format[*decide.Decision]{"md", plain(DecisionMarkdown)},
	format[*decide.Decision]{"json", plain(DecisionJSON)},
)

// ProbesFormats are the renderings of `sectax attribute probes`.
var ProbesFormats = formats(
	format[*attribute.ProbeReport]{"text", plain(ProbesText)},
	format[*attribute.ProbeReport]{"md", plain(ProbesMarkdown)},
	format[*attribute.ProbeReport]{"json", plain(ProbesJSON)},
)

// plain is a renderer that takes no options.
func plain[T any](f func(io.Writer, T) error) Renderer[T] {
	return func(w io.Writer, v T, _ Options) error { return f(w, v) }
}

// The models shown as text or as their JSON document.
var (
	// AdviceFormats are the renderings of `sectax advise`.
	AdviceFormats = textOrJSON(plain(AdviceText))
	// VerificationFormats are the renderings of `sectax verify`.
	VerificationFormats = textOrJSON(plain(VerificationText))
	// BaselinesFormats are the renderings of `sectax baselines`.
	BaselinesFormats = textOrJSON(plain(BaselinesText))
	// EnvFormats are the renderings of `sectax env`.
	EnvFormats = textOrJSON(plain(EnvText))
	// ListFormats are the renderings of `sectax list` (text in colour
	// when Options.Color).
	ListFormats = textOrJSON(func(w io.Writer, rows []ListRow, opt Options) error { return ListText(w, rows, opt.Color) })
	// WorkloadsFormats are the renderings of `sectax workloads`.
	WorkloadsFormats = formats(
		format[[]workload.Workload]{"text", plain(WorkloadsText)},
		format[[]workload.Workload]{"json", plain(WorkloadsJSON)},
	)
	// WSLConfigFormats are the renderings of `sectax wslconfig show`.
	WSLConfigFormats = textOrJSON(plain(WSLConfigText))
	// PlanFormats are the renderings of `sectax attribute plan`.
	PlanFormats = formats(
		format[*attribute.Design]{"text", plain(PlanText)},
		format[*attribute.Design]{"json", plain(PlanJSON)},
	)
	// RunFormats are the renderings of a run measured here (`sectax run`):
	// its table, or its sectax.run/v1 document.
	RunFormats = textOrJSON(plain(RunText))
	// CrosscheckFormats are the renderings of `sectax crosscheck`.
	CrosscheckFormats = formats(
		format[*run.Run]{"text", plain(CrosscheckText)},
		format[*run.Run]{"json", plain(CrosscheckJSON)},
	)
	// CampaignStatusFormats are the renderings of `sectax campaign status`.
	CampaignStatusFormats = formats(
		format[*campaign.Status]{"text", plain(CampaignStatusText)},
		format[*campaign.Status]{"json", plain(CampaignStatusJSON)},
	)
)

// textOrJSON are the formats of a model laid out by text, or written as
// its JSON document.
func textOrJSON[T any](text Renderer[T]) *Formats[T] {
	return formats(
		format[T]{"text", text},
		format[T]{"json", func(w io.Writer, v T, _ Options) error { return WriteJSON(w, v) }},
	)
}
