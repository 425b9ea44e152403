package lab

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/userfile"
	"io"
	"strings"
)

// KernelVersion reads the version string of a bzImage: the setup header
// (magic "HdrS" at 0x202) holds at 0x20E the offset, minus 0x200, of a
// NUL-terminated string such as "6.1.0-57-amd64 (debian-kernel@…) #1 SMP
// …". The first word is the release, the name of its /lib/modules
// directory. An image without that header (a vmlinux, a very old kernel)
// gives an error: pass --modules instead.
func KernelVersion(image []byte) (release, full string, err error) {
	if len(image) < 0x210 || string(image[0x202:0x206]) != "HdrS" {
		return "", "", errors.New("not a bzImage (no HdrS setup header)")
	}
	if v := binary.LittleEndian.Uint16(image[0x206:]); v < 0x0200 {
		return "", "", fmt.Errorf("boot protocol %#x has no kernel version string", v)
	}
	off := int(binary.LittleEndian.Uint16(image[0x20E:])) + 0x200
	if off >= len(image) || off < 0x210 {
		return "", "", errors.New("kernel version offset points outside the image")
	}
	s := image[off:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if len(s) > 256 {
		s = s[:256]
	}
	full = strings.TrimSpace(string(s))
	fields := strings.Fields(full)
	if len(fields) == 0 || !printable(fields[0]) {
		return "", "", errors.New("empty or unreadable kernel version string")
	}
	return fields[0], full, nil
}

func printable(s string) bool {
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return false
		}
	}
	return true
}

// KernelImage is a kernel the lab boots: its path, the sha256 of its
// bytes and, for a bzImage, its release.
type KernelImage struct {
	Path    string
	SHA256  string
	Release string
	// Version is the whole version string ("" when unknown).
	Version string
}

// ReadKernel opens a kernel image, hashes it and reads its version.
func ReadKernel(path string) (KernelImage, error) {
	f, err := userfile.OpenRegular(path)
	if err != nil {
		return KernelImage{}, fmt.Errorf("kernel image: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
	}
	head = head[:n]
	h.Write(head)
	if _, err := io.Copy(h, f); err != nil {
		return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
	}
	k := KernelImage{Path: path, SHA256: hex.EncodeToString(h.Sum(nil))}
	k.Release, k.Version, _ = KernelVersion(head)
	return k, nil
}
