// Package mitigation is sectax's knowledge of the Linux kernel's
// CPU-vulnerability mitigations as they appear in text: the kernel command
// line (tokenising it the way the kernel does, classifying the
// mitigation-relevant parameters, deriving the mode on|off|custom|unknown,
// merging parameter lists) and the lines of
// /sys/devices/system/cpu/vulnerabilities/* (state, detail and sub-fields).
//
// Everything here is a pure function of its input: no file is read, nothing
// is printed. The facts come from the kernel at the 6.17/6.18 level:
// kernel-parameters.txt (https://docs.kernel.org/admin-guide/kernel-parameters.html),
// the hw-vuln pages (https://docs.kernel.org/admin-guide/hw-vuln/index.html) and
// arch/x86/kernel/cpu/bugs.c (https://github.com/torvalds/linux/blob/master/arch/x86/kernel/cpu/bugs.c).
//
// Entry points:
//
//   - ParseCmdline(raw) splits /proc/cmdline (or a PARAMS string a user
//     typed) into Params; Tokens gives the words as written. It is the
//     only tokenizer: sysinfo, advise, compare and wslconfig all use it.
//     Classify picks out the mitigation-relevant ones; ModeOf(params) says
//     what mode they give and why.
//   - ParseParams, Merge, Remove and Diff are the one way a command line
//     is edited: advise previews an edit with Merge, and wslconfig set
//     performs it with the same Merge (a property test holds the preview
//     and the written line equal). Merge(base, extra) applies extra on top
//     of base the way the kernel's last-one-wins rule would, replacing a
//     parameter in place.
//   - Which parameters are mitigation parameters, and what each value does,
//     is data in knowledge.json (effects per value, files per parameter):
//     the classifier reads it, and IsMitigationParam, IsHardeningParam,
//     EffectOf, TurnsOff and ParamFiles answer other packages from it.
//   - ParseVulnerability(name, raw) parses one sysfs vulnerability file.
package mitigation
