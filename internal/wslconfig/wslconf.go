package wslconfig

import "strings"

// /etc/wsl.conf, the distribution's WSL settings, has the format of
// .wslconfig and is read by the same parser: this is its one reader
// (sysinfo's interop and automount facts, the Locator's drive mounts).

// Value is the value WSL uses for section.key in f: the first entry that
// sets it (a later one is shadowed); ok is false when none does.
func (f *File) Value(section, key string) (value string, ok bool) {
	for _, e := range f.entries {
		if e.Is(section, key) && !e.Shadowed {
			return e.Value, true
		}
	}
	return "", false
}

// confValue is section.key of the wsl.conf text data ("" when it is not
// set or the file cannot be parsed).
func confValue(data []byte, section, key string) string {
	f, err := Parse(data)
	if err != nil {
		return ""
	}
	v, _ := f.Value(section, key)
	return v
}

// AutomountRoot is [automount] root of /etc/wsl.conf (its text data), where
// the Windows drives are mounted: "/mnt/" when it is not set or not an
// absolute path, always ending in '/'.
func AutomountRoot(data []byte) string {
	root := confValue(data, "automount", "root")
	if !strings.HasPrefix(root, "/") {
		root = "/mnt/"
	}
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return root
}

// InteropDisabled reports whether /etc/wsl.conf (its text data) turns
// Windows interop off ([interop] enabled = false).
func InteropDisabled(data []byte) bool {
	return strings.EqualFold(confValue(data, "interop", "enabled"), "false")
}
