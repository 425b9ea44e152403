package vm

import (
	"bufio"
	"fmt"
	"github.com/sectax/sectax/internal/userfile"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Module is a kernel module to load in the guest: its name and the path of
// its .ko file below the modules directory.
type Module struct {
	Name string
	Path string
}

// ModuleName is the name of a module file ("kernel/fs/9p/9p.ko" → "9p";
// dashes count as underscores, as the kernel does).
func ModuleName(p string) string {
	b := path.Base(p)
	if i := strings.Index(b, ".ko"); i >= 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}

// ResolveModules returns, in load order (dependencies first), the modules
// that dir (/lib/modules/RELEASE) holds for the given names, with their
// dependencies from modules.dep. A name built into the kernel
// (modules.builtin) needs nothing. A name neither built in nor a module is
// an error naming it.
func ResolveModules(dir string, names []string) ([]Module, error) {
	if len(names) == 0 {
		return nil, nil
	}
	builtin := map[string]bool{}
	if err := eachLine(filepath.Join(dir, "modules.builtin"), func(l string) {
		builtin[ModuleName(l)] = true
	}); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	deps := map[string][]string{} // module path → dependency paths
	byName := map[string]string{} // name → path
	if err := eachLine(filepath.Join(dir, "modules.dep"), func(l string) {
		mod, rest, ok := strings.Cut(l, ":")
		if !ok {
			return
		}
		mod = strings.TrimSpace(mod)
		byName[ModuleName(mod)] = mod
		deps[mod] = strings.Fields(rest)
	}); err != nil {
		if os.IsNotExist(err) {
			// No modules for this kernel (a monolithic kernel such as
			// WSL's): everything must be built in.
			var missing []string
			for _, n := range names {
				if !builtin[ModuleName(n)] && len(builtin) > 0 {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 {
				return nil, fmt.Errorf("%s has no modules.dep and %s is not built in: pass --modules DIR", dir, strings.Join(missing, ", "))
			}
			return nil, nil
		}
		return nil, err
	}
	var out []Module
	seen := map[string]bool{}
	var visit func(p string, depth int) error
	visit = func(p string, depth int) error {
		if seen[p] {
			return nil
		}
		if depth > 64 {
			return fmt.Errorf("modules.dep in %s: dependency loop at %s", dir, p)
		}
		seen[p] = true
		for _, d := range deps[p] {
			if err := visit(d, depth+1); err != nil {
				return err
			}
		}
		out = append(out, Module{Name: ModuleName(p), Path: p})
		return nil
	}
	for _, n := range names {
		name := ModuleName(n)
		if builtin[name] {
			continue
		}
		p, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("kernel module %s is neither built into the kernel nor in %s/modules.dep", n, dir)
		}
		if err := visit(p, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func eachLine(p string, fn func(string)) error {
	f, err := userfile.OpenRegular(p)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			fn(l)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// ChannelModules are the modules the result channel needs: the 8250 UART
// of the second serial port (built into distribution kernels, so usually
// nothing to load).
var ChannelModules = []string{"8250"}
