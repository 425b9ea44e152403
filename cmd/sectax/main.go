//go:build linux

// Command sectax measures the performance cost of the Linux kernel's
// CPU-vulnerability mitigations on the machine it runs on.
//
// Everything lives in internal/cli; main only wires the process to it.
package main

import (
	"context"
	"os"

	"github.com/sectax/sectax/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
