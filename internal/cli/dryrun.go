package cli

// dryRunUsage is the help of every --dry-run (campaign start, lab,
// wslconfig set/unset); each opens its output with report.DryRunLine.
const dryRunUsage = "show what would be done, in order, and change nothing"
