// Package advise turns a mitigation target (off, auto, or explicit kernel
// parameters) into platform-specific steps and a list of what is given up
// (`sectax advise`), and checks a running kernel against an expectation
// (`sectax verify`).
//
// Everything is a pure function of a sysinfo.Snapshot, a Platform (probed
// from files below a root directory by Probe) and the mitigation knowledge
// base: nothing here changes boot configuration, runs a command or prints.
// The facts come from the kernel's kernel-parameters.txt (parameters and
// precedence: https://docs.kernel.org/admin-guide/kernel-parameters.html),
// WSL's documentation and source (https://learn.microsoft.com/windows/wsl/wsl-config,
// https://github.com/microsoft/WSL) and the boot loaders' manuals;
// docs/wsl.md and docs/native.md describe them for users.
package advise
