package sysinfo

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf16"
)

// WSLKernel reads a kernel release string the way WSL's own init does
// (src/linux/init/util.cpp UtilIsUtilityVm): a capital "Microsoft" is WSL 1
// (lxcore, "4.4.0-19041-Microsoft"), a lower-case "microsoft" is a WSL 2
// VM ("6.6.87.2-microsoft-standard-WSL2"). version is 0 when the release
// names neither; flavor is the release after its version number.
func WSLKernel(release string) (version int, flavor string) {
	switch {
	case strings.Contains(release, "Microsoft"):
		version = 1
	case strings.Contains(release, "microsoft"), strings.Contains(release, "WSL2"):
		version = 2
	default:
		return 0, ""
	}
	if _, after, ok := strings.Cut(release, "-"); ok {
		flavor = after
		// "4.4.0-19041-Microsoft": drop the build number.
		if v, f, ok := strings.Cut(after, "-"); ok && isDigits(v) {
			flavor = f
		}
	}
	return version, flavor
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// DecodeConsoleText decodes the output of a Windows program: wsl.exe writes
// UTF-16LE to a pipe unless WSL_UTF8=1 reached it. The text is taken as
// UTF-16LE when it starts with a UTF-16LE byte-order mark or when most odd
// bytes are NUL; otherwise it is UTF-8. Carriage returns and NULs are
// removed.
func DecodeConsoleText(b []byte) string {
	isUTF16 := bytes.HasPrefix(b, []byte{0xff, 0xfe})
	if !isUTF16 && len(b) >= 2 {
		nul := 0
		for i := 1; i < len(b); i += 2 {
			if b[i] == 0 {
				nul++
			}
		}
		isUTF16 = nul*2 > len(b)/2
	}
	var s string
	if isUTF16 {
		b = bytes.TrimPrefix(b, []byte{0xff, 0xfe})
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		s = string(utf16.Decode(u))
	} else {
		s = strings.TrimPrefix(string(b), "\ufeff")
	}
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\x00", "")
}

var versionRe = regexp.MustCompile(`\d+(?:\.\d+)+(?:-\d+)?`)

// ParseWSLVersion reads the output of `wsl.exe --version` (already
// decoded). The labels are localised, so it goes by position: the first
// line's version is the WSL package version, and the line whose version
// starts with "10." is Windows (the last line in every release so far).
// It also reads `wslinfo --version`, which prints just the version.
func ParseWSLVersion(text string) (pkg, windows string) {
	var versions []string
	for _, line := range strings.Split(text, "\n") {
		if v := versionRe.FindString(line); v != "" {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return "", ""
	}
	pkg = versions[0]
	if len(versions) > 1 {
		last := versions[len(versions)-1]
		if strings.HasPrefix(last, "10.") || strings.HasPrefix(last, "11.") {
			windows = last
		}
	}
	return pkg, windows
}

// OSReleaseValue reads KEY=value from os-release text, unquoting a value
// in matching quotes: the one reader of os-release (sysinfo, advise).
func OSReleaseValue(text, key string) string {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && k == key {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			return v
		}
	}
	return ""
}
