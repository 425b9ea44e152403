package proof

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// hashed are the hashes this process made, by FileSHA256's memo name.
var hashed sync.Map

// MaxProgram bounds the bytes of a program whose identity a proof takes
// (QEMU, the guest's /init): both are some tens of MiB.
const MaxProgram = 512 << 20

// FileSHA256 is the sha256 of the regular file at path (links followed),
// the identity of the QEMU or the /init that made a proof. Hashing some
// 60 MiB on every call would cost more than the answer it keys, so c
// (nil: none) keeps each hash under a name made of the file's path,
// device, inode, size, modification and change times: a file rewritten
// in place or replaced gets another change time, which no user can set,
// and is hashed again. remember false only reads what is kept (verify,
// which makes nothing). This process also keeps each hash it made, under
// the same name, for its later calls.
func FileSHA256(c *Cache, path string, remember bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size > MaxProgram {
		return "", fmt.Errorf("%s: %d MiB, larger than a program a proof boots with (%d MiB)", path, st.Size>>20, MaxProgram>>20)
	}
	abs, _ := filepath.Abs(path)
	memo := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d\x00%d\x00%d.%d\x00%d.%d", abs, st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec))
	name := "id-" + hex.EncodeToString(memo[:16])
	if sum, ok := hashed.Load(name); ok {
		return sum.(string), nil
	}
	if c != nil {
		if b, err := c.readFile(name, 64); err == nil && len(b) == 64 && isHex(string(b)) {
			return string(b), nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, MaxProgram+1)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	hashed.Store(name, sum)
	if c != nil && remember {
		c.writeFile(name, []byte(sum)) // a memo: the next call hashes again when it cannot be written
	}
	return sum, nil
}
