package cli

import "golang.org/x/sys/unix"

func termios(fd int) (*unix.Termios, error) { return unix.IoctlGetTermios(fd, unix.TCGETS) }
