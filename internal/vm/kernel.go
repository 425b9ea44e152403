package vm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/tempdir"
	"github.com/sectax/sectax/internal/userfile"
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

// MaxKernelImage is the largest kernel image the lab reads: a
// distribution bzImage is some 10 MiB, one with a built-in initramfs a few
// tens. A larger file (a disk image, a sparse file given by mistake) is
// refused before it is hashed.
const MaxKernelImage = 256 << 20

// DefaultCmdlineSize is the longest kernel command line an image that does
// not say otherwise accepts (x86's COMMAND_LINE_SIZE, 2048 with its NUL);
// a bzImage of boot protocol 2.06 or later states its own in cmdline_size
// (offset 0x238), an older one accepts 255 bytes.
const DefaultCmdlineSize = 2047

// CmdlineSize is the longest command line (in bytes, without the NUL) the
// kernel whose first bytes are head accepts.
func CmdlineSize(head []byte) int {
	if len(head) < 0x23C || string(head[0x202:0x206]) != "HdrS" {
		return DefaultCmdlineSize
	}
	if v := binary.LittleEndian.Uint16(head[0x206:]); v < 0x0206 {
		return 255
	}
	n := binary.LittleEndian.Uint32(head[0x238:])
	if n == 0 || n > 1<<20 {
		return DefaultCmdlineSize
	}
	return int(n)
}

// KernelImage is a kernel the lab boots: its path, the sha256 of its
// bytes and, for a bzImage, its release.
type KernelImage struct {
	Path    string
	SHA256  string
	Release string
	// Version is the whole version string ("" when unknown).
	Version string
	// CmdlineSize is the longest command line it accepts (CmdlineSize).
	CmdlineSize int
}

// ReadKernel is ReadKernelContext without cancellation.
func ReadKernel(path string) (KernelImage, error) {
	return ReadKernelContext(context.Background(), path)
}

// ReadKernelContext opens a kernel image, hashes it and reads its version
// and command-line limit. An image over MaxKernelImage is refused before
// any byte is hashed (and the read stops there if the file grows), and
// ctx's cancellation stops the hash between two blocks. A file that
// cannot be a kernel image is a usage error, a cancellation an
// interruption (internal/exit).
func ReadKernelContext(ctx context.Context, path string) (KernelImage, error) {
	return readKernel(ctx, path, nil)
}

// PrivateKernel is ReadKernelContext that also copies the bytes it hashes
// into a new owner-marked temporary folder of sectax's (tempdir.Make), as
// a file of its own (never opened through a link, 0600), and returns the
// copy with the function that removes the folder: its Path is the copy's,
// its hash and release those of the bytes copied, so that what is booted
// is what was hashed even when the original changes meanwhile. An image
// that is not a bzImage is refused (CheckBzImage).
func PrivateKernel(ctx context.Context, path string) (KernelImage, func(), error) {
	dir, err := tempdir.Make("proof-")
	if err != nil {
		return KernelImage{}, nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	dst := filepath.Join(dir, "bzImage")
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		remove()
		return KernelImage{}, nil, fmt.Errorf("kernel image copy: %w", err)
	}
	k, err := readKernel(ctx, path, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = CheckBzImage(k)
	}
	if err != nil {
		remove()
		return KernelImage{}, nil, err
	}
	k.Path = dst
	return k, remove, nil
}

// readKernel reads the image at path as ReadKernelContext says, writing
// its bytes to w too when w is not nil.
func readKernel(ctx context.Context, path string, w io.Writer) (KernelImage, error) {
	f, err := userfile.OpenRegular(path)
	if err != nil {
		return KernelImage{}, exit.Wrap(exit.Usage, fmt.Errorf("kernel image: %w", err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
	} else if fi.Size() > MaxKernelImage {
		return KernelImage{}, tooBig(path, fi.Size())
	}
	h := sha256.New()
	var hw io.Writer = h
	if w != nil {
		hw = io.MultiWriter(h, w)
	}
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
	}
	head = head[:n]
	if _, err := hw.Write(head); err != nil {
		return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
	}
	total := int64(n)
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return KernelImage{}, exit.Wrap(exit.Interrupted, fmt.Errorf("kernel image %s: hashing stopped: %w", path, err))
		}
		n, err := f.Read(buf)
		if _, werr := hw.Write(buf[:n]); werr != nil {
			return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, werr)
		}
		if total += int64(n); total > MaxKernelImage {
			return KernelImage{}, tooBig(path, total)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return KernelImage{}, fmt.Errorf("kernel image %s: %w", path, err)
		}
	}
	k := KernelImage{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), CmdlineSize: CmdlineSize(head)}
	k.Release, k.Version, _ = KernelVersion(head)
	return k, nil
}

func tooBig(path string, size int64) error {
	return exit.Usagef("kernel image %s: %d MiB or more, larger than any kernel (the lab reads at most %d MiB): give a bzImage such as /boot/vmlinuz-VERSION", path, size>>20, MaxKernelImage>>20)
}

// kernelCmdlineSize reads the command-line limit from the head of the
// kernel image at path.
func kernelCmdlineSize(path string) (int, error) {
	f, err := userfile.OpenRegular(path)
	if err != nil {
		return 0, fmt.Errorf("kernel image: %w", err)
	}
	defer f.Close()
	head := make([]byte, 0x240)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return 0, fmt.Errorf("kernel image %s: %w", path, err)
	}
	return CmdlineSize(head[:n]), nil
}

// ErrCmdline is wrapped by CheckCmdline's errors.
var ErrCmdline = errors.New("kernel command line")

// CheckCmdline checks a lab boot's command line before QEMU starts: it
// fits the kernel's limit (size, from CmdlineSize; 0 means
// DefaultCmdlineSize), and every parameter of LabParams is on it with its
// value as the effective (last) occurrence, so that a panicking guest ends
// the VM at once and its messages reach the console log.
func CheckCmdline(cmdline string, size int) error {
	if size <= 0 {
		size = DefaultCmdlineSize
	}
	if len(cmdline) > size {
		return fmt.Errorf("%w: %d bytes, longer than the %d the kernel accepts: give the configuration fewer or shorter parameters", ErrCmdline, len(cmdline), size)
	}
	running := mitigation.ParseCmdline(cmdline).Params
	for _, need := range mitigation.ParseCmdline(LabParams).Params {
		if got, ok := mitigation.Lookup(running, need.Name); !ok || got.Raw != need.Raw {
			return fmt.Errorf("%w: %q lacks %s, which every lab boot needs (%s): a configuration may not set %s", ErrCmdline, cmdline, need.Raw, LabParams, need.Name)
		}
	}
	return nil
}

// CheckConfigs checks, before the first boot of kernel k, that no
// configuration sets a parameter of LabParams (console=, panic=,
// no_timer_check: the lab's own) and that each configuration's command
// line fits k's limit. Its errors are usage errors.
func CheckConfigs(k KernelImage, configs []bootconfig.Config) error {
	own := mitigation.ParseCmdline(LabParams).Params
	for _, c := range configs {
		for _, p := range c.Params {
			if _, ok := mitigation.Lookup(own, p.Name); ok {
				return exit.Usagef("%w: configuration %s sets %s, which the lab sets itself (%s: the console log and a panic that ends the VM at once): drop it from the configuration", ErrCmdline, c.Name, p.Raw, LabParams)
			}
		}
	}
	for _, c := range configs {
		if err := CheckCmdline(c.Cmdline(LabParams, configs), k.CmdlineSize); err != nil {
			return exit.Wrap(exit.Usage, fmt.Errorf("configuration %s on %s: %w", c.Name, k.Path, err))
		}
	}
	return nil
}

// DefaultImages are the running kernel's image and initrd under root
// (/boot/vmlinuz-RELEASE; /boot/initrd.img-RELEASE on Debian,
// /boot/initramfs-RELEASE.img on Fedora; "" when there is none): the one
// finder of the running kernel, for the lab's default --kernel and the
// campaign's kexec.
func DefaultImages(root, release string) (kernel, initrd string) {
	if root == "" {
		root = "/"
	}
	if !releaseName(release) {
		// The release is read from below the root (or a kernel image): a
		// "../" in it must not point outside the root's /boot.
		return "", ""
	}
	kernel = filepath.Join(root, "boot", "vmlinuz-"+release)
	for _, name := range []string{"initrd.img-" + release, "initramfs-" + release + ".img", "initrd-" + release} {
		p := filepath.Join(root, "boot", name)
		if _, err := os.Stat(p); err == nil {
			return kernel, p
		}
	}
	return kernel, ""
}

// releaseName reports whether a kernel release can name a file below
// /boot or a folder below /lib/modules: not empty, no path separator, not
// "." or "..", no control character.
func releaseName(release string) bool {
	return release != "" && release != "." && release != ".." &&
		!strings.ContainsFunc(release, func(r rune) bool { return r == '/' || r == '\\' || r < 0x20 || r == 0x7f })
}

// Kernels reads the kernel images (none: the running kernel's of release,
// under root) and finds their modules (modules, or root's
// /lib/modules/RELEASE of each image).
func Kernels(ctx context.Context, paths []string, modules, root, release string) ([]Kernel, error) {
	if root == "" {
		root = "/"
	}
	if len(paths) == 0 {
		p, _ := DefaultImages(root, release)
		if p == "" {
			return nil, exit.Usagef("the running kernel's release %q is not a file name, so its image cannot be found below %s: pass it with --kernel", release, root)
		}
		if _, err := os.Stat(p); err != nil {
			if found, _ := filepath.Glob(filepath.Join(root, "boot", "vmlinuz-*")); len(found) > 0 {
				return nil, exit.Wrap(exit.Usage, fmt.Errorf("no kernel image of the running system at %s; this machine has %s: pass it with --kernel", p, strings.Join(found, ", ")))
			}
			return nil, fmt.Errorf("no kernel image of the running system at %s: install one (Debian: apt-get install linux-image-amd64) and pass --kernel /boot/vmlinuz-VERSION", p)
		}
		paths = []string{p}
	}
	var images []KernelImage
	for _, p := range paths {
		k, err := ReadKernelContext(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("--kernel: %w", err)
		}
		images = append(images, k)
	}
	names := KernelNames(images)
	var out []Kernel
	for i, img := range images {
		k := Kernel{Name: names[i], Image: img, ModulesDir: modules}
		if k.ModulesDir == "" && releaseName(img.Release) {
			k.ModulesDir = filepath.Join(root, "lib", "modules", img.Release)
		}
		if k.ModulesDir != "" {
			if _, err := os.Stat(k.ModulesDir); err == nil {
				mods, err := ResolveModules(k.ModulesDir, ChannelModules)
				if err != nil {
					return nil, err
				}
				k.Modules = mods
			} else if modules != "" {
				return nil, exit.Usagef("--modules %s: %v", modules, err)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// Kernel is one kernel of a plan: the name its labels use, its image, and
// the modules its initramfs carries.
type Kernel struct {
	Name       string
	Image      KernelImage
	ModulesDir string
	Modules    []Module
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// KernelNames names the kernels of a plan for their labels: the release of
// each image (6.1.0-57-amd64), else its file name without "vmlinuz-";
// when two would get the same name, the position is added (k1, k2).
func KernelNames(images []KernelImage) []string {
	names := make([]string, len(images))
	count := map[string]int{}
	for i, k := range images {
		n := k.Release
		if n == "" {
			n = strings.TrimPrefix(filepath.Base(k.Path), "vmlinuz-")
		}
		n = strings.Trim(unsafeName.ReplaceAllString(n, "_"), "_")
		if n == "" {
			n = "kernel"
		}
		names[i] = n
		count[n]++
	}
	for i := range names {
		if count[names[i]] > 1 {
			names[i] = fmt.Sprintf("k%d-%s", i+1, names[i])
		}
	}
	return names
}
