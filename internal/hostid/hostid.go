// Package hostid owns this host's identity: a key only this host's root
// holds, and the marks it puts on what it measured so that it can
// recognise them again in a shared store.
//
// The key is a random secret sectax makes once as root:
// /var/lib/sectax/host.key below the root, mode 0600 and root's, in
// folders of mode 0700 that are root's, made through rootfs's rooted
// writes (a temporary file O_EXCL|O_NOFOLLOW linked into place, so a
// second maker keeps the first one's key; no link followed, no folder
// others may write). A key file that is a link, not a
// regular file, another user's, or readable by group or others is refused.
// Only root can read it, so only root can mark a run: a run measured by
// another user on the running machine is stored without a mark (and says
// so). Under a fake root (tests, --root) the secret is below that root,
// owned by root or by sectax's user.
//
// Until issue 45 the key was derived from /etc/machine-id, which every
// local user can read: anyone could compute this host's mark for any run
// id. Runs marked with that key are no longer recognised as this host's
// (decide counts them as another host's and says why).
//
// A mark is data: a store row, an import or an export may carry any
// string; Key.Recognises compares in constant time and a mark is trusted
// for nothing else. A mark copied from another run does not fit another
// run id, and one cannot be made without the key.
package hostid

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sectax/sectax/internal/rootfs"
)

// SecretFile is the host's secret below the root.
const SecretFile = "var/lib/sectax/host.key"

// MarkLen is the length of a mark in hex digits (128 bits).
const MarkLen = 32

// Key is this host's key. The zero Key recognises nothing and marks
// nothing.
type Key struct {
	k []byte
	// Source is the path of the secret file.
	Source string
}

// NotRootError is the key asked for by another user than root on the
// running machine: the key is root's alone.
type NotRootError struct{ UID int }

func (e *NotRootError) Error() string {
	return fmt.Sprintf("/%s is root's alone and sectax runs as uid %d; only runs measured as root are marked", SecretFile, e.UID)
}

// Known is the host's key below root without making one; the zero Key
// (and no error) when there is none yet.
func Known(root string) (Key, error) {
	return load(root, false)
}

// Of is the host's key below root, made now (once) when there is none.
func Of(root string) (Key, error) {
	return load(root, true)
}

func load(root string, make bool) (Key, error) {
	if root == "" {
		root = "/"
	}
	if filepath.Clean(root) == "/" && os.Geteuid() != 0 {
		return Key{}, &NotRootError{UID: os.Geteuid()}
	}
	return fromSecret(root, SecretFile, make)
}

// fromSecret is the key of the secret file rel below base, made when
// there is none and make is set (the zero Key when there is none).
func fromSecret(base, rel string, make bool) (Key, error) {
	w, err := rootfs.OpenWrite(base)
	if err != nil {
		return Key{}, err
	}
	defer w.Close()
	k, err := readSecret(w, rel)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !make {
		if errors.Is(err, fs.ErrNotExist) {
			return Key{}, nil
		}
		return k, err
	}
	if _, err := w.MkdirAll(path.Dir(rel), 0o700); err != nil {
		return Key{}, fmt.Errorf("cannot keep this host's key in %s: %w", w.Path(path.Dir(rel)), err)
	}
	var secret [32]byte
	rand.Read(secret[:])
	// Made new (linked into place, never renamed over a name): of two
	// first runs at once, the second finds the first one's key and reads
	// it back, so both mark with the key that stays.
	err = w.CreateFile(rel, []byte(hex.EncodeToString(secret[:])+"\n"), 0o600)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return Key{}, fmt.Errorf("cannot write this host's key %s: %w", w.Path(rel), err)
	}
	return readSecret(w, rel)
}

// readSecret reads the secret file rel below w: a regular file of root
// (or, below a fake root, sectax's user) that no one else may read, in
// folders no one else may write, holding 64 hexadecimal digits.
func readSecret(w *rootfs.FS, rel string) (Key, error) {
	if err := w.CheckFolders(path.Dir(rel)); err != nil {
		return Key{}, err
	}
	fi, err := w.Lstat(rel)
	if err != nil {
		return Key{}, err
	}
	bad := fmt.Errorf("%s is not a host key sectax wrote (a link, not a regular file, another user's, or readable by others): remove it and sectax makes a new one", w.Path(rel))
	if !fi.Mode().IsRegular() || !rootfs.Private(fi, 0o077) {
		return Key{}, bad
	}
	b, err := w.ReadFileMax(rel, 128)
	if err != nil {
		return Key{}, err
	}
	s := strings.TrimSuffix(string(b), "\n")
	k, err := hex.DecodeString(s)
	if err != nil || len(k) != 32 {
		return Key{}, bad
	}
	return Key{k: k, Source: w.Path(rel)}, nil
}

// Zero reports whether k is the zero Key (no key: nothing is marked or
// recognised).
func (k Key) Zero() bool { return len(k.k) == 0 }

// sum is HMAC(key, domain + ":" + what) in hex.
func (k Key) sum(domain, what string) string {
	m := hmac.New(sha256.New, k.k)
	m.Write([]byte(domain + ":" + what))
	return hex.EncodeToString(m.Sum(nil))
}

// Mark is the mark of the run id measured on this host: HMAC(key, "run:" +
// id), MarkLen hex digits ("" with the zero Key).
func (k Key) Mark(runID string) string {
	if k.Zero() {
		return ""
	}
	return k.sum("run", runID)[:MarkLen]
}

// Recognises reports whether mark is this host's mark of the run id
// (compared in constant time; the zero Key recognises nothing).
func (k Key) Recognises(runID, mark string) bool {
	if k.Zero() || len(mark) != MarkLen {
		return false
	}
	return hmac.Equal([]byte(k.Mark(runID)), []byte(mark))
}
