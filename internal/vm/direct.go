package vm

import (
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/userfile"
)

// A direct boot starts the kernel inside a bzImage at its PVH entry (the
// ELF note XEN_ELFNOTE_PHYS32_ENTRY that an x86 kernel built with
// CONFIG_PVH carries, as Debian's do), from the uncompressed ELF the host
// unpacks once (Unpack), instead of letting the kernel's own decompressor
// unpack it under emulation: under TCG that decompressor is about half of
// a boot (a boot of Debian's 6.1 to its end, 6.0 s through the bzImage,
// 2.9 s direct; docs/benchmarks.md). The kernel that runs is the same
// bytes; only the first instructions differ (no real-mode setup, no
// decompressor, so no KASLR). The proof, the corpus and the lab's probe
// boot directly where an image allows it, and their records say so (a
// stored proof's Boot, an observation's Entry); the lab's measured boots
// start the bzImage, as a boot loader does.

// EntryPVH names a direct boot in what records a boot.
const EntryPVH = "pvh"

// MaxUnpacked bounds the kernel Unpack writes: a distribution's vmlinux is
// some 60 MiB.
const MaxUnpacked = 512 << 20

// xenNotePhys32Entry is the type of the ELF note (name "Xen") that holds
// the kernel's 32-bit PVH entry point.
const xenNotePhys32Entry = 18

// Payload is the compressed kernel of a bzImage: its offset and length in
// the image, its format (gzip, zstd, xz, or what its magic says
// otherwise) and the size of the kernel it holds (the four bytes the
// kernel's build appends to every payload).
type Payload struct {
	Offset, Length int64
	Format         string
	Size           int64
}

// payloadFormats are the magics of the payload formats the kernel's build
// can use; Unpack reads the first three.
var payloadFormats = []struct {
	name  string
	magic string
}{
	{"gzip", "\x1f\x8b"}, {"zstd", "\x28\xb5\x2f\xfd"}, {"xz", "\xfd7zXZ\x00"},
	{"lz4", "\x02\x21\x4c\x18"}, {"bzip2", "BZh"}, {"lzo", "\x89LZO"}, {"lzma", "\x5d\x00\x00"},
}

// FindPayload reads the setup header of the bzImage r (size bytes): the
// payload_offset and payload_length fields of boot protocol 2.08 and
// later, behind the setup sectors.
func FindPayload(r io.ReaderAt, size int64) (Payload, error) {
	head := make([]byte, 0x250)
	if _, err := r.ReadAt(head, 0); err != nil {
		return Payload{}, errors.New("not a bzImage (shorter than its setup header)")
	}
	if string(head[0x202:0x206]) != "HdrS" {
		return Payload{}, errors.New("not a bzImage (no HdrS setup header)")
	}
	if v := binary.LittleEndian.Uint16(head[0x206:]); v < 0x0208 {
		return Payload{}, fmt.Errorf("boot protocol %#x does not say where its payload is (2.08 and later do)", v)
	}
	sects := int64(head[0x1f1])
	if sects == 0 {
		sects = 4
	}
	p := Payload{
		Offset: (sects+1)*512 + int64(binary.LittleEndian.Uint32(head[0x248:])),
		Length: int64(binary.LittleEndian.Uint32(head[0x24c:])),
	}
	if p.Length < 16 || p.Offset > size || p.Length > size-p.Offset {
		return Payload{}, fmt.Errorf("the payload (%d bytes at %d) is not inside the %d-byte image", p.Length, p.Offset, size)
	}
	magic := make([]byte, 8)
	tail := make([]byte, 4)
	if _, err := r.ReadAt(magic, p.Offset); err != nil {
		return Payload{}, err
	}
	if _, err := r.ReadAt(tail, p.Offset+p.Length-4); err != nil {
		return Payload{}, err
	}
	p.Size = int64(binary.LittleEndian.Uint32(tail))
	p.Format = "unknown"
	for _, f := range payloadFormats {
		if bytes.HasPrefix(magic, []byte(f.magic)) {
			p.Format = f.name
			break
		}
	}
	return p, nil
}

// Unpack writes the uncompressed kernel of the bzImage image to out (a new
// file) and checks that it is an ELF with a PVH entry. An error says why
// the image cannot be booted directly (a format sectax does not unpack, no
// xz program for an xz payload, no PVH entry, a payload that does not
// unpack to the size it states); the caller then boots the bzImage.
func Unpack(ctx context.Context, image, out string) error {
	f, err := userfile.OpenRegular(image)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	p, err := FindPayload(f, fi.Size())
	if err != nil {
		return err
	}
	if p.Size <= 0 || p.Size > MaxUnpacked {
		return fmt.Errorf("the payload states a kernel of %d bytes (at most %d MiB are unpacked)", p.Size, MaxUnpacked>>20)
	}
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = unpackPayload(ctx, io.NewSectionReader(f, p.Offset, p.Length-4), p, w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = CheckPVH(out)
	}
	if err != nil {
		os.Remove(out)
	}
	return err
}

// unpackPayload decompresses the payload (without its size trailer) into
// w, at most p.Size bytes, and checks it was exactly that many.
func unpackPayload(ctx context.Context, r io.Reader, p Payload, w io.Writer) error {
	lw := &limitWriter{w: w, left: p.Size}
	err := decompress(ctx, r, p.Format, lw)
	switch {
	case lw.over:
		return fmt.Errorf("the payload unpacks to more than the %d bytes it states", p.Size)
	case err != nil:
		return err
	case lw.left != 0:
		return fmt.Errorf("the payload unpacks to %d bytes, not the %d it states", p.Size-lw.left, p.Size)
	}
	return ctx.Err()
}

// decompress writes the payload r of format to w.
func decompress(ctx context.Context, r io.Reader, format string, w io.Writer) error {
	lw := w
	switch format {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("gzip payload: %w", err)
		}
		if _, err := io.Copy(lw, zr); err != nil {
			return fmt.Errorf("gzip payload: %w", err)
		}
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(MaxUnpacked)*2))
		if err != nil {
			return err
		}
		defer zr.Close()
		if _, err := io.Copy(lw, zr); err != nil {
			return fmt.Errorf("zstd payload: %w", err)
		}
	case "xz":
		// The kernel's xz payload has an x86 branch filter (BCJ) before
		// LZMA2, which no Go decoder reads: xz itself unpacks it.
		bin, err := child.LookPath("xz")
		if err != nil {
			return errors.New("an xz payload, and no xz program to unpack it (Debian: apt-get install xz-utils)")
		}
		cmd := child.Command(ctx, bin, "-dc")
		cmd.Stdin, cmd.Stdout = r, lw
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		wait, err := child.Start(cmd)
		if err != nil {
			return fmt.Errorf("xz: %w", err)
		}
		if err := wait(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("xz payload: %v %s", err, firstLine(stderr.String()))
		}
	default:
		return fmt.Errorf("a %s payload (sectax unpacks gzip, zstd and xz)", format)
	}
	return nil
}

// limitWriter writes at most left bytes and notes more.
type limitWriter struct {
	w    io.Writer
	left int64
	over bool
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if int64(len(b)) > l.left {
		l.over = true
		return 0, errors.New("more bytes than the payload states")
	}
	n, err := l.w.Write(b)
	l.left -= int64(n)
	return n, err
}

// CheckPVH says whether the ELF kernel at path has a PVH entry: a note
// named "Xen" of type XEN_ELFNOTE_PHYS32_ENTRY in a PT_NOTE segment.
func CheckPVH(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("the unpacked kernel is not an ELF file: %w", err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 && f.Machine != elf.EM_386 {
		return fmt.Errorf("the unpacked kernel is for %s, not x86", f.Machine)
	}
	for _, pr := range f.Progs {
		if pr.Type != elf.PT_NOTE || pr.Filesz > 1<<20 {
			continue
		}
		b, err := io.ReadAll(pr.Open())
		if err != nil {
			return fmt.Errorf("the unpacked kernel's notes: %w", err)
		}
		if hasNote(b, f.ByteOrder, "Xen", xenNotePhys32Entry) {
			return nil
		}
	}
	return errors.New("the kernel has no PVH entry (built without CONFIG_PVH)")
}

// hasNote walks ELF notes (namesz, descsz, type, name and desc each
// padded to 4 bytes) for one of the name and type.
func hasNote(b []byte, bo binary.ByteOrder, name string, typ uint32) bool {
	for len(b) >= 12 {
		nsz, dsz, t := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
		b = b[12:]
		n, d := int64(align4(nsz)), int64(align4(dsz))
		if n > int64(len(b)) || d > int64(len(b))-n {
			return false
		}
		if t == typ && nsz == uint32(len(name))+1 && string(b[:len(name)]) == name && b[len(name)] == 0 {
			return true
		}
		b = b[n+d:]
	}
	return false
}

func align4(n uint32) uint64 { return (uint64(n) + 3) &^ 3 }

// Direct unpacks the bzImage k into dir, a folder of the caller's own,
// once per image (its unpacked kernel, named by the image's sha256, is
// kept there), and returns the ELF to boot, or "" and why the bzImage
// must be booted instead.
func Direct(ctx context.Context, k KernelImage, dir string) (string, error) {
	if len(k.SHA256) < 16 {
		return "", errors.New("the image is not hashed")
	}
	out := filepath.Join(dir, "vmlinux-"+k.SHA256[:16])
	if err := CheckPVH(out); err == nil {
		return out, nil
	}
	os.Remove(out)
	if err := Unpack(ctx, k.Path, out); err != nil {
		return "", err
	}
	return out, nil
}
