package run

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewID returns a sortable, unique run id: UTC time and random bits.
func NewID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}
