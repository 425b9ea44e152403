//go:build !linux

// Command sectax measures the Linux kernel's mitigations, so on any other
// system it only says so: its measuring code uses Linux system calls and
// is not built here.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "sectax: sectax needs Linux (this is %s): it measures the Linux kernel's CPU-vulnerability mitigations; run it inside WSL 2 or on a Linux machine\n", runtime.GOOS)
	os.Exit(1)
}
