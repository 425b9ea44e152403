//go:build ignore

// static checks that the ELF binaries named on the command line are
// statically linked: no PT_INTERP program header (no dynamic loader) and no
// PT_DYNAMIC section. Used by .ci/run: go run .ci/static.go BINARY.
package main

import (
	"debug/elf"
	"fmt"
	"os"
)

func main() {
	bad := false
	for _, path := range os.Args[1:] {
		f, err := elf.Open(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
		for _, p := range f.Progs {
			switch p.Type {
			case elf.PT_INTERP:
				fmt.Fprintf(os.Stderr, "%s is dynamically linked (it has a PT_INTERP header): build with CGO_ENABLED=0\n", path)
				bad = true
			case elf.PT_DYNAMIC:
				fmt.Fprintf(os.Stderr, "%s has a PT_DYNAMIC header (shared libraries): build with CGO_ENABLED=0\n", path)
				bad = true
			}
		}
		f.Close()
		if !bad {
			fmt.Printf("%s: statically linked\n", path)
		}
	}
	if bad {
		os.Exit(1)
	}
}
