package report

import (
	"fmt"
	"io"
	"strings"

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
	var b strings.Builder
	fmt.Fprintf(&b, "campaign %s (via %s): %s\n", termSafe(st.ID), termSafe(st.Via), termSafe(string(st.State)))
	if st.State == campaign.Running {
		fmt.Fprintf(&b, "step %d of %d: %s\n", min(st.Step, st.Steps), st.Steps, termSafe(st.Message))
	} else {
		fmt.Fprintf(&b, "%s\n", termSafe(st.Message))
	}
	if st.NextBoot != nil {
		fmt.Fprintf(&b, "next boot: %s (boot %d), kernel command line: %s\n", termSafe(st.NextBoot.Config), st.NextBoot.Boot, quotedOrEmpty(st.NextBoot.Cmdline))
	}
	if st.Resume != "" {
		fmt.Fprintf(&b, "resumes after the boot: %s\n", termSafe(st.Resume))
	}
	if v := st.LastVerification; v != nil {
		if v.Verification.OK {
			fmt.Fprintf(&b, "last verification: step %d (%s) verified: boot %s, command line %s\n", v.Step, termSafe(v.Config), termSafe(v.Verification.BootID), quotedOrEmpty(v.Verification.Cmdline))
		} else {
			fmt.Fprintf(&b, "last verification: step %d (%s) did NOT verify (boot %s):\n", v.Step, termSafe(v.Config), termSafe(v.Verification.BootID))
			for _, r := range v.Verification.Reasons {
				fmt.Fprintf(&b, "  - %s\n", termSafe(r))
			}
		}
	}
	fmt.Fprintf(&b, "labels: %s (seed %d)\n", strings.Join(termSafeAll(st.Labels), ", "), st.Seed)
	fmt.Fprintf(&b, "plan:\n")
	for _, s := range st.Plan {
		line := fmt.Sprintf("  %2d  %-10s boot %d  %-9s", s.Step, termSafe(s.Config), s.Boot, termSafe(string(s.Status)))
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (%d boots)", s.Attempts)
		}
		if s.RunID != "" {
			line += "  run " + termSafe(s.RunID)
		}
		if s.Quiet != "" {
			line += fmt.Sprintf("  quiet start: %s after %.1f s", termSafe(s.Quiet), s.QuietWait)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	switch {
	case len(st.Changed) > 0 && st.State == campaign.Running:
		fmt.Fprintf(&b, "changed on this system (put back at the end, or by 'sectax campaign abort'):\n")
	case len(st.Changed) > 0:
		fmt.Fprintf(&b, "NOT put back (restore failed: %s); fix it, then run 'sectax campaign abort %s' again:\n", termSafe(st.RestoreError), termSafe(st.ID))
	}
	for _, c := range st.Changed {
		fmt.Fprintf(&b, "  - %s\n", termSafe(c.String()))
	}
	if len(st.Changed) == 0 && st.State != campaign.Running {
		b.WriteString("everything the campaign changed is put back\n")
		if st.Via == "wsl" {
			b.WriteString("(WSL still runs the last step's kernel command line until it restarts: wsl --shutdown)\n")
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
