package vm

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFramesThroughNoise(t *testing.T) {
	var stream []byte
	stream = append(stream, "[    2.5] random: crng init done\r\n"...)
	stream = append(stream, EncodeFrame(KindHello, []byte(`{"release":"6.1"}`))...)
	stream = append(stream, "SECTAX"...) // a partial magic in the noise
	stream = append(stream, EncodeFrame(KindLog, []byte("verified"))...)
	corrupt := EncodeFrame(KindResult, []byte("a result that a stray byte garbles"))
	corrupt[len(corrupt)-3] ^= 0xff
	stream = append(stream, corrupt...)
	stream = append(stream, EncodeFrame(KindResult, bytes.Repeat([]byte{0, 1, 0xF7, 0x0a}, 5000))...)
	stream = append(stream, EncodeFrame(KindDone, nil)...)

	frames, rest, bad := DecodeFrames(stream)
	var kinds []byte
	for _, f := range frames {
		kinds = append(kinds, f.Kind)
	}
	if string(kinds) != "HLRD" {
		t.Errorf("kinds %q, want HLRD", kinds)
	}
	if len(bad) != 1 || !errors.Is(bad[0], ErrCorrupt) {
		t.Errorf("corrupt frames reported: %v", bad)
	}
	if rest != len(stream)-len(Magic)+1 && rest != len(stream) {
		t.Errorf("rest %d of %d", rest, len(stream))
	}
	if len(frames[2].Payload) != 20000 {
		t.Errorf("result payload %d bytes", len(frames[2].Payload))
	}

	// The same stream fed in pieces, as the host reads it while the
	// guest writes, gives the same frames.
	var buf []byte
	var got []Frame
	for i := 0; i < len(stream); i += 37 {
		buf = append(buf, stream[i:min(i+37, len(stream))]...)
		fs, rest, _ := DecodeFrames(buf)
		got = append(got, fs...)
		buf = buf[rest:]
	}
	if len(got) != len(frames) {
		t.Fatalf("streamed: %d frames, want %d", len(got), len(frames))
	}
	for i := range got {
		if got[i].Kind != frames[i].Kind || !bytes.Equal(got[i].Payload, frames[i].Payload) {
			t.Errorf("streamed frame %d differs", i)
		}
	}
}

func TestTruncatedFrame(t *testing.T) {
	f := EncodeFrame(KindResult, []byte("0123456789"))
	frames, rest, bad := DecodeFrames(f[:len(f)-1])
	if len(frames) != 0 || rest != 0 || len(bad) != 0 {
		t.Errorf("truncated: %v frames, rest %d, bad %v", frames, rest, bad)
	}
}

func FuzzDecodeFrames(f *testing.F) {
	f.Add(EncodeFrame(KindHello, []byte(`{}`)))
	f.Add(append([]byte("noise\r\n"), EncodeFrame(KindResult, []byte("x"))...))
	f.Add(append(Magic[:], 'R', 0xff, 0xff, 0xff, 0xff))
	f.Add(append(EncodeFrame(KindLog, nil), Magic[:5]...))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, rest, _ := DecodeFrames(data)
		if rest < 0 || rest > len(data) {
			t.Fatalf("rest %d outside 0..%d", rest, len(data))
		}
		for _, fr := range frames {
			// Every frame decoded re-encodes to bytes present in the input.
			if !bytes.Contains(data, EncodeFrame(fr.Kind, fr.Payload)) {
				t.Fatalf("frame %q not in the input", fr.Kind)
			}
		}
	})
}

// TestChannelReaderIncremental: each read takes only the bytes written
// since the last one, and frames split across reads arrive whole.
func TestChannelReaderIncremental(t *testing.T) {
	p := filepath.Join(t.TempDir(), "channel")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &channelReader{f: f, limit: 1 << 20}
	var got []string
	collect := func(fr Frame) error { got = append(got, string(fr.Payload)); return nil }
	frame := EncodeFrame(KindLog, []byte("one"))
	w.Write([]byte("noise"))
	w.Write(frame[:20])
	if err := r.read(collect); err != nil || len(got) != 0 {
		t.Fatalf("read: %v, %q", err, got)
	}
	w.Write(frame[20:])
	w.Write(EncodeFrame(KindLog, []byte("two")))
	if err := r.read(collect); err != nil || strings.Join(got, ",") != "one,two" {
		t.Fatalf("read: %v, %q", err, got)
	}
	if fi, _ := w.Stat(); r.off != fi.Size() {
		t.Errorf("read %d bytes in all, the file has %d: bytes were read twice", r.off, fi.Size())
	}
	if len(r.buf) > len(Magic) {
		t.Errorf("%d bytes kept after whole frames", len(r.buf))
	}
}
