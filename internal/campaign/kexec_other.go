//go:build !linux

package campaign

import (
	"context"
	"errors"
)

// Boot needs Linux.
func (k *Kexec) Boot(ctx context.Context, req BootRequest, record func(Change) error) error {
	return errors.New("kexec needs Linux; use --via manual")
}

func unloadKexecImage() error { return nil }
