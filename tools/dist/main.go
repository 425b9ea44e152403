// Command dist writes sectax's release files into a folder:
//
//	go run ./tools/dist DIR
//
// For linux/amd64 and linux/arm64 it builds a static sectax (CGO_ENABLED=0,
// -trimpath, an empty build id, the commit stamped by -buildvcs so that
// 'sectax --version' names it) and writes into DIR, new or empty:
//
//   - sectax_VERSION_linux_ARCH.tar.gz: the binary, the man pages, the
//     bash, zsh and fish completions, README.md and LICENSE;
//   - a .deb and an .rpm per architecture (nfpm) installing /usr/bin/sectax,
//     the man pages gzipped under /usr/share/man/man1 and the completions
//     where bash-completion, zsh and fish look;
//   - sectax_VERSION_linux_ARCH.cdx.json, a CycloneDX bill of materials of
//     the modules compiled into that binary (its debug/buildinfo, what
//     'go version -m' lists);
//   - checksums.txt, the SHA-256 of every other file.
//
// The man pages and completions are the built binary's own ('sectax man',
// 'sectax completion SHELL'), run on this machine's architecture. Every
// time in the files is the commit's (SOURCE_DATE_EPOCH when it is set), so
// two runs on the same commit write the same bytes. -arch amd64 builds one
// architecture (the test does).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is dist's command line: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", "amd64,arm64", "the architectures to build, comma-separated (amd64, arm64)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./tools/dist [-arch amd64,arm64] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	opts := Options{Dir: fs.Arg(0), Arches: strings.Split(*arch, ","), Log: stderr}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	written, err := Build(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "dist: %v\n", err)
		return 1
	}
	for _, name := range written {
		fmt.Fprintln(stdout, name)
	}
	return 0
}
