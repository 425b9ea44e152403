package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/campaign"
)

// CampaignStatusJSON is the JSON of 'sectax campaign status'.
func CampaignStatusJSON(w io.Writer, st *campaign.Status) error { return WriteJSON(w, st) }

// CampaignStatusLine is the one-line state of a campaign.
func CampaignStatusLine(st *campaign.Status) string {
	if st.State == campaign.Running {
		return fmt.Sprintf("campaign %s: step %d of %d: %s", termSafe(st.ID), min(st.Step, st.Steps), st.Steps, termSafe(st.Message))
	}
	return fmt.Sprintf("campaign %s: %s: %s", termSafe(st.ID), termSafe(string(st.State)), termSafe(st.Message))
}

// CampaignStatusText is the text of 'sectax campaign status': the state,
// the next boot, the last verification, the plan and what is left to put
// back.
func CampaignStatusText(w io.Writer, st *campaign.Status) error {
	return plainText(w, func(w io.Writer) error { return campaignStatusText(w, st) })
}

func campaignStatusText(w io.Writer, st *campaign.Status) error {
	b := newTextBuf(w)
	fmt.Fprintf(b, "campaign %s (via %s): %s\n", termSafe(st.ID), termSafe(st.Via), termSafe(string(st.State)))
	if st.State == campaign.Running {
		s := fmt.Sprintf("step %d of %d: %s", min(st.Step, st.Steps), st.Steps, st.Message)
		writeForeign(b, termSafe(s), s, "", "  ")
	} else {
		writeForeign(b, termSafe(st.Message), st.Message, "", "  ")
	}
	// A kernel command line or a command to copy stays whole, on a line of
	// its own when it does not fit after what it is (writeLabelled).
	if st.NextBoot != nil {
		writeLabelled(b, fmt.Sprintf("next boot: %s (boot %d), kernel command line:", termSafe(st.NextBoot.Config), st.NextBoot.Boot), quotedOrEmpty(st.NextBoot.Cmdline), "  ")
	}
	if st.Resume != "" {
		if how, cmd, ok := strings.Cut(st.Resume, ": "); ok && strings.HasPrefix(cmd, "/") {
			// The command always on a line of its own: it names a path.
			fmt.Fprintf(b, "resumes after the boot: %s:\n  %s\n", termSafe(how), termSafe(cmd))
		} else {
			writeForeign(b, termSafe(st.Resume), st.Resume, "resumes after the boot: ", "  ")
		}
	}
	if v := st.LastVerification; v != nil {
		if v.Verification.OK {
			writeLabelled(b, fmt.Sprintf("last verification: step %d (%s) verified: boot %s, command line", v.Step, termSafe(v.Config), termSafe(v.Verification.BootID)), quotedOrEmpty(v.Verification.Cmdline), "  ")
		} else {
			fmt.Fprintf(b, "last verification: step %d (%s) did NOT verify (boot %s):\n", v.Step, termSafe(v.Config), termSafe(v.Verification.BootID))
			for _, r := range v.Verification.Reasons {
				writeQuoting(b, termSafe(r), r, "  - ", "    ")
			}
		}
	}
	fmt.Fprintf(b, "labels: %s (seed %d)\n", strings.Join(termSafeAll(st.Labels), ", "), st.Seed)
	fmt.Fprintf(b, "plan:\n")
	for _, s := range st.Plan {
		line := fmt.Sprintf("  %2d  %-10s boot %d  %-9s", s.Step, termSafe(s.Config), s.Boot, termSafe(string(s.Status)))
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (%d boots)", s.Attempts)
		}
		if s.RunID != "" {
			line += "  run " + termSafe(s.RunID)
		}
		line = strings.TrimRight(line, " ")
		if s.Quiet != "" { // after the row, or under it when it does not fit
			quiet := fmt.Sprintf("quiet start: %s after %.1f s", termSafe(s.Quiet), s.QuietWait)
			if utf8.RuneCountInString(line+"  "+quiet) <= b.width {
				line += "  " + quiet
			} else {
				line += "\n" + strings.Join(wrap(quiet, "      ", "        ", b.width), "\n")
			}
		}
		b.WriteString(line + "\n")
	}
	switch {
	case len(st.Changed) > 0 && st.State == campaign.Running:
		writeWrapped(b, "changed on this system (put back at the end, or by 'sectax campaign abort'):", "", "  ")
	case len(st.Changed) > 0:
		s := "NOT put back (restore failed: " + st.RestoreError + "); fix it, then run this again:"
		writeForeign(b, termSafe(s), s, "", "  ")
		fmt.Fprintf(b, "  sectax campaign abort %s\n", termSafe(st.ID))
	}
	for _, c := range st.Changed {
		writeForeign(b, termSafe(c.String()), c.String(), "  - ", "    ")
	}
	if len(st.Changed) == 0 && st.State != campaign.Running {
		b.WriteString("everything the campaign changed is put back\n")
		if st.Via == "wsl" {
			writeWrapped(b, "(WSL still runs the last step's kernel command line until it restarts: wsl --shutdown)", "", "  ")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quotedOrEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return `"" (nothing added)`
	}
	return termSafe(s)
}
