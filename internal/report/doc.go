// Package report lays out every model sectax computes, in every format it
// offers, and computes nothing itself: the comparison of two or more
// sides (text, Markdown, JSON, CSV, HTML with its charts and PNG charts,
// and the Go benchmark format so that benchstat reads sectax data), a run
// and the stored runs, the environment, the workloads, crosscheck, the lab
// matrix, the campaign's status and report, the dry runs, attribution and
// the probes, the fleet, advice and the .wslconfig edit. One file (or a
// few) per model and format; registry.go lists each model's formats.
// Every text that sectax did not write is escaped for its format.
package report
