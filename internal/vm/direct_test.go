package vm

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sectax/sectax/internal/testutil"
)

// tinyELF is a 64-bit x86 ELF executable whose one PT_NOTE segment holds
// the notes given (name, type): enough for CheckPVH.
func tinyELF(notes ...struct {
	name string
	typ  uint32
}) []byte {
	var nb bytes.Buffer
	le := binary.LittleEndian
	for _, n := range notes {
		binary.Write(&nb, le, uint32(len(n.name)+1))
		binary.Write(&nb, le, uint32(4))
		binary.Write(&nb, le, n.typ)
		nb.WriteString(n.name + "\x00")
		for nb.Len()%4 != 0 {
			nb.WriteByte(0)
		}
		nb.Write([]byte{0x50, 0x08, 0x00, 0x01})
	}
	const ehsize, phsize = 64, 56
	b := make([]byte, ehsize+phsize)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], 2)  // ET_EXEC
	le.PutUint16(b[18:], 62) // EM_X86_64
	le.PutUint32(b[20:], 1)  // EV_CURRENT
	le.PutUint64(b[32:], 64) // e_phoff
	le.PutUint16(b[52:], 64) // e_ehsize
	le.PutUint16(b[54:], 56) // e_phentsize
	le.PutUint16(b[56:], 1)  // e_phnum
	le.PutUint16(b[58:], 64) // e_shentsize
	ph := b[ehsize:]
	le.PutUint32(ph[0:], 4)                     // PT_NOTE
	le.PutUint64(ph[8:], uint64(ehsize+phsize)) // p_offset
	le.PutUint64(ph[32:], uint64(nb.Len()))     // p_filesz
	le.PutUint64(ph[40:], uint64(nb.Len()))     // p_memsz
	return append(b, nb.Bytes()...)
}

var pvhNote = struct {
	name string
	typ  uint32
}{"Xen", xenNotePhys32Entry}

// fakeBzImage is a bzImage of boot protocol 2.15 whose payload is
// compressed (already, with its size trailer appended as the kernel's
// build does, of size: -1 for the true size).
func fakeBzImage(compressed []byte, size int) []byte {
	const sects = 3
	img := make([]byte, (sects+1)*512)
	img[0x1f1] = sects
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x206:], 0x020f)
	binary.LittleEndian.PutUint32(img[0x248:], 100) // payload_offset behind the setup
	img = append(img, make([]byte, 100)...)
	trailer := binary.LittleEndian.AppendUint32(nil, uint32(size))
	payload := append(append([]byte{}, compressed...), trailer...)
	binary.LittleEndian.PutUint32(img[0x24c:], uint32(len(payload)))
	return append(append(img, payload...), "trailing setup data"...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	e, _ := zstd.NewWriter(nil)
	return e.EncodeAll(b, nil)
}

// TestUnpack: a gzip or zstd payload unpacks to the ELF it holds, which
// must state its size rightly and carry a PVH note; every refusal says
// why in one line and leaves no file behind.
func TestUnpack(t *testing.T) {
	kernel := tinyELF(struct {
		name string
		typ  uint32
	}{"Linux", 6}, pvhNote)
	noPVH := tinyELF(struct {
		name string
		typ  uint32
	}{"Xen", 17})
	old := fakeBzImage(gz(kernel), len(kernel))
	binary.LittleEndian.PutUint16(old[0x206:], 0x0206)
	for _, tc := range []struct {
		name  string
		image []byte
		want  string // "" unpacks
	}{
		{"gzip", fakeBzImage(gz(kernel), len(kernel)), ""},
		{"zstd", fakeBzImage(zst(kernel), len(kernel)), ""},
		{"size stated short", fakeBzImage(gz(kernel), len(kernel)-1), "more than the"},
		{"size stated long", fakeBzImage(gz(kernel), len(kernel)+1), "not the"},
		{"no PVH entry", fakeBzImage(gz(noPVH), len(noPVH)), "no PVH entry"},
		{"not an ELF", fakeBzImage(gz([]byte("vmlinux.bin")), 11), "not an ELF"},
		{"lz4", fakeBzImage(append([]byte("\x02\x21\x4c\x18"), kernel...), len(kernel)), "a lz4 payload"},
		{"huge", fakeBzImage(gz(kernel), MaxUnpacked+1), "at most 512 MiB"},
		{"protocol 2.06", old, "does not say where its payload is"},
		{"not a bzImage", make([]byte, 4096), "no HdrS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "vmlinuz")
			if err := os.WriteFile(img, tc.image, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "vmlinux")
			err := Unpack(context.Background(), img, out)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(out); !bytes.Equal(b, kernel) {
					t.Errorf("unpacked %d bytes, not the kernel", len(b))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line with %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused unpack left %s", out)
			}
		})
	}
}

// TestDirectRealKernel: every installed x86 kernel (Debian's: an xz
// payload for 6.1, zstd from 6.12) unpacks to an ELF with a PVH entry, and
// Direct keeps it for the next call.
func TestDirectRealKernel(t *testing.T) {
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	if len(imgs) == 0 {
		testutil.Need(t, "no /boot/vmlinuz-* (apt-get install linux-image-amd64)")
	}
	for _, p := range imgs {
		k, err := ReadKernel(p)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out, err := Direct(context.Background(), k, dir)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		fi, _ := os.Stat(out)
		again, err := Direct(context.Background(), k, dir)
		fi2, _ := os.Stat(again)
		if err != nil || again != out || !os.SameFile(fi, fi2) || !fi.ModTime().Equal(fi2.ModTime()) {
			t.Errorf("%s: the second Direct unpacked again or failed: %v", p, err)
		}
		t.Logf("%s: %d MiB unpacked", p, fi.Size()>>20)
	}
}

// FuzzFindPayload: no header, however hostile, makes FindPayload panic or
// place the payload outside the image.
func FuzzFindPayload(f *testing.F) {
	k := tinyELF(pvhNote)
	f.Add(fakeBzImage(gz(k), len(k)))
	f.Add(fakeBzImage(zst(k), len(k)))
	f.Add(make([]byte, 0x300))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := FindPayload(bytes.NewReader(b), int64(len(b)))
		if err == nil && (p.Offset < 0 || p.Length < 16 || p.Offset+p.Length > int64(len(b))) {
			t.Errorf("payload %+v outside a %d-byte image", p, len(b))
		}
	})
}

// FuzzHasNote: the note walk never reads past its segment.
func FuzzHasNote(f *testing.F) {
	f.Add(tinyELF(pvhNote)[120:])
	f.Add([]byte{4, 0, 0, 0, 4, 0, 0, 0, 18, 0, 0, 0, 'X', 'e', 'n', 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		hasNote(b, binary.LittleEndian, "Xen", xenNotePhys32Entry)
	})
}
