package report

import (
	_ "embed"
	"html/template"
	"io"

	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/stats"
)

//go:embed fleet.tmpl
var fleetTemplate string

var fleetTmpl = newPage(fleetTemplate, template.FuncMap{
	"t":        termSafe, // control characters as \xNN, as in the compare page
	"title":    fleetGroupTitle,
	"pct":      stats.FormatPct,
	"interval": fleetInterval,
	"workload": fleetWorkload,
})

// fleetHTML is the fleet report as one self-contained page (the compare
// report's style sheet, no script, nothing fetched); html/template escapes
// every name that came from a stored run.
func fleetHTML(w io.Writer, rep *fleet.Report) error {
	return fleetTmpl.ExecuteTemplate(w, "page", struct {
		*fleet.Report
		Headline, Note string
		CSS            template.CSS
	}{rep, fleetHeadline(rep), FleetSyntheticNote, template.CSS(htmlCSS)})
}
