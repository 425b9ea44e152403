// Package hostid owns this host's identity: a key only this host holds,
// and the marks it puts on what it measured so that it can recognise them
// again in a shared store.
//
// The key is derived from /etc/machine-id below the root with HMAC-SHA256
// and a domain string (systemd asks that the machine id never leave the
// machine: it is never stored, only what the HMAC makes of it). A root with
// no machine id (a container, a minimal image) gets a random secret that
// sectax makes once: /var/lib/sectax/host.key below the root for root, and
// $XDG_STATE_HOME/sectax/host.key (else ~/.local/state/sectax/host.key)
// for another user on the running machine; mode 0600 in folders of mode
// 0700 made through rootfs's rooted writes (no link followed, no folder
// others may write).
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

// keyDomain is the application id the machine id is keyed with.
const keyDomain = "sectax host key v1"

// MachineIDFile is where the machine id is read, below the root.
const MachineIDFile = "etc/machine-id"

// SecretFile is root's secret below the root when there is no machine id;
// userSecretDir the folder of another user's, below its state folder.
const (
	SecretFile    = "var/lib/sectax/host.key"
	userSecretDir = "sectax"
)

// MarkLen is the length of a mark in hex digits (128 bits).
const MarkLen = 32

// Key is this host's key. The zero Key recognises nothing and marks
// nothing.
type Key struct {
	k []byte
	// Source says where the key comes from: "machine-id" or the path of
	// the secret file.
	Source string
}

// ParseMachineID is the machine id in the text of /etc/machine-id: 32
// hexadecimal digits on one line (systemd's format), lower-cased; ok is
// false for anything else, "uninitialized" and an all-zero id included.
func ParseMachineID(text string) (id string, ok bool) {
	s := strings.TrimSuffix(text, "\n")
	if len(s) != 32 {
		return "", false
	}
	s = strings.ToLower(s)
	if _, err := hex.DecodeString(s); err != nil || s == strings.Repeat("0", 32) {
		return "", false
	}
	return s, true
}

// secretPlace is the folder the secret file's path is below and the path
// below it, for root ("/" and any fake root) or another user on the
// running machine.
func secretPlace(root string) (base, rel string, err error) {
	if root == "" {
		root = "/"
	}
	if filepath.Clean(root) != "/" || os.Geteuid() == 0 {
		return root, SecretFile, nil
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return x, path.Join(userSecretDir, "host.key"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", "", errors.New("no home folder to keep this host's key in (set XDG_STATE_HOME)")
	}
	return home, path.Join(".local/state", userSecretDir, "host.key"), nil
}

// Known is the host's key below root without making one: from the machine
// id, else from a secret sectax made; the zero Key (and no error) when
// there is neither.
func Known(root string) (Key, error) {
	return load(root, false)
}

// Of is the host's key below root: from the machine id, else from the
// secret sectax made, made now (once) when there is none.
func Of(root string) (Key, error) {
	return load(root, true)
}

func load(root string, make bool) (Key, error) {
	if root == "" {
		root = "/"
	}
	r, err := rootfs.Open(root)
	if err != nil {
		return Key{}, err
	}
	text, err := r.ReadText(MachineIDFile)
	r.Close()
	if err == nil {
		if id, ok := ParseMachineID(text); ok {
			m := hmac.New(sha256.New, []byte(id))
			m.Write([]byte(keyDomain))
			return Key{k: m.Sum(nil), Source: "machine-id"}, nil
		}
	}
	base, rel, err := secretPlace(root)
	if err != nil {
		return Key{}, err
	}
	return fromSecret(base, rel, make)
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
	if err := w.WriteFile(rel, []byte(hex.EncodeToString(secret[:])+"\n"), 0o600); err != nil {
		return Key{}, fmt.Errorf("cannot write this host's key %s: %w", w.Path(rel), err)
	}
	// Read back what is there: of two first runs at once, both keep the
	// one renamed last.
	return readSecret(w, rel)
}

// readSecret reads the secret file rel below w: a regular file of
// sectax's user (or root) that no one else may read, in folders no one
// else may write, holding 64 hexadecimal digits.
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
