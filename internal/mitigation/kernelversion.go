package mitigation

// KernelBelow reports whether a kernel release ("4.15.0-213-generic") is
// older than a major.minor version ("5.2"); false when either does not
// parse or min is empty. The release is parsed by the knowledge base's one
// reader of a kernel's major.minor (kbKernelVersion), so advise and the
// knowledge base never disagree on a version.
func KernelBelow(release, min string) bool { return !kbAtLeast(release, min, true) }
