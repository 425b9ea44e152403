package report

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// bootShareLine says, for each workload's primary metric, how much of each
// side's spread is boot-to-boot (compare.Metric.BootShare), for the sides
// that hold two or more boots: "boot-to-boot part of the spread: sched-pipe
// A 70%, B 12%; …" ("–" for a side of one boot). "" when no side has one.
func bootShareLine(c *compare.Comparison) string {
	var parts []string
	for _, r := range c.Rows {
		var cells []string
		known := false
		for si, m := range r.Sides {
			if m == nil || m.Role != compare.RolePrimary {
				continue
			}
			if len(cells) == 0 { // the baseline, A of every comparison
				cells = append(cells, "A "+sharePct(m.BootShare, true))
			}
			cells = append(cells, compare.SideLetter(si+1)+" "+sharePct(m.BootShare, false))
			known = known || m.BootShare != nil
		}
		if known {
			parts = append(parts, r.Workload.ID+" "+strings.Join(cells, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "boot-to-boot part of the spread: " + strings.Join(parts, "; ")
}

// sharePct is side A's (a) or B's boot share in whole percent, "–" when
// the side has none.
func sharePct(s *compare.BootShare, a bool) string {
	if s == nil {
		return none
	}
	v := s.B
	if a {
		v = s.A
	}
	if v == nil {
		return none
	}
	return fmt.Sprintf("%.0f%%", *v)
}
