package vm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// The result channel: the guest writes frames on its second serial port
// (ttyS1, the 8250 UART built into distribution kernels) and QEMU writes
// that port's bytes to a file. Kernel messages go to the first port, but a
// frame still carries its own magic, length and SHA-256, so that anything
// else on the line (a stray printk, a truncated write, a port left in
// cooked mode) is skipped or detected, never taken for a result.
//
// Frame layout: magic (8 bytes) | kind (1 byte) | payload length (4 bytes,
// big endian) | SHA-256 of kind and payload (32 bytes) | payload.

// Magic starts every frame.
var Magic = [8]byte{'S', 'E', 'C', 'T', 'A', 'X', 0xF7, 0x01}

// MaxFrame is the largest payload a frame may carry (a run document with
// its environment is a few hundred KiB).
const MaxFrame = 64 << 20

const frameHeader = 8 + 1 + 4 + sha256.Size

// Kinds of frame.
const (
	// KindHello is the guest's handshake: /init started (payload: JSON
	// GuestHello).
	KindHello byte = 'H'
	// KindResult carries the task's result (for the measure task, a
	// sectax.run/v1 document).
	KindResult byte = 'R'
	// KindError says why the task failed (one line of text).
	KindError byte = 'E'
	// KindUnverified says why the boot did not verify, so that nothing was
	// measured (one line of text).
	KindUnverified byte = 'V'
	// KindLog is a line of progress from the guest.
	KindLog byte = 'L'
	// KindDone ends the guest's output: it powers off next.
	KindDone byte = 'D'
)

// Frame is one message from the guest.
type Frame struct {
	Kind    byte
	Payload []byte
}

// EncodeFrame returns the bytes of one frame.
func EncodeFrame(kind byte, payload []byte) []byte {
	b := make([]byte, 0, frameHeader+len(payload))
	b = append(b, Magic[:]...)
	b = append(b, kind)
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	sum := frameSum(kind, payload)
	b = append(b, sum[:]...)
	return append(b, payload...)
}

func frameSum(kind byte, payload []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte{kind})
	h.Write(payload)
	var s [sha256.Size]byte
	copy(s[:], h.Sum(nil))
	return s
}

// ErrCorrupt is returned for a frame whose checksum does not match.
var ErrCorrupt = errors.New("corrupt frame")

// DecodeFrames returns every intact frame in data, in order, skipping any
// bytes outside frames. rest is the offset from which a later call with
// more data should continue (the start of an incomplete frame, or the
// end). A frame whose checksum does not match is reported in bad and
// skipped past its magic.
func DecodeFrames(data []byte) (frames []Frame, rest int, bad []error) {
	off := 0
	for {
		i := bytes.Index(data[off:], Magic[:])
		if i < 0 {
			// Keep a tail that may be the start of a magic.
			keep := len(Magic) - 1
			if n := len(data) - off; n < keep {
				keep = n
			}
			return frames, len(data) - keep, bad
		}
		start := off + i
		if len(data)-start < frameHeader {
			return frames, start, bad
		}
		kind := data[start+8]
		n := binary.BigEndian.Uint32(data[start+9 : start+13])
		if n > MaxFrame {
			bad = append(bad, fmt.Errorf("%w at byte %d: length %d exceeds %d", ErrCorrupt, start, n, MaxFrame))
			off = start + 1
			continue
		}
		end := start + frameHeader + int(n)
		if end > len(data) {
			return frames, start, bad
		}
		payload := data[start+frameHeader : end]
		sum := frameSum(kind, payload)
		if !bytes.Equal(sum[:], data[start+13:start+frameHeader]) {
			bad = append(bad, fmt.Errorf("%w at byte %d: checksum mismatch (kind %q, %d bytes)", ErrCorrupt, start, kind, n))
			off = start + 1
			continue
		}
		frames = append(frames, Frame{Kind: kind, Payload: bytes.Clone(payload)})
		off = end
	}
}

// GuestHello is the payload of the guest's handshake frame.
type GuestHello struct {
	Release string `json:"release"`
	// UptimeS is the guest's uptime when /init sent it (boot to /init).
	UptimeS float64 `json:"uptime_s"`
	Task    string  `json:"task"`
	// Modules are those /init loaded.
	Modules []string `json:"modules,omitempty"`
}
