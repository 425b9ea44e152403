// Package mitigation is sectax's knowledge of the Linux kernel's
// CPU-vulnerability mitigations as they appear in text: the kernel command
// line (tokenising it the way the kernel does, classifying the
// mitigation-relevant parameters, deriving the mode on|off|custom|unknown,
// merging parameter lists) and the lines of
// /sys/devices/system/cpu/vulnerabilities/* (state, detail and sub-fields).
//
// Everything here is a pure function of its input: no file is read, nothing
// is printed. The facts come from spec/platform.md §1 (kernel-parameters.txt
// and arch/x86/kernel/cpu/bugs.c at the 6.17/6.18 level).
//
// Entry points:
//
//   - ParseCmdline(raw) splits /proc/cmdline (or a PARAMS string a user
//     typed) into Params; Classify picks out the mitigation-relevant ones;
//     ModeOf(params) says what mode they give and why.
//   - ParseParams and Merge are for commands that edit a command line
//     (advise, verify, wslconfig): Merge(base, extra) applies extra on top
//     of base the way the kernel's last-one-wins rule would.
//   - ParseVulnerability(name, raw) parses one sysfs vulnerability file.
package mitigation
