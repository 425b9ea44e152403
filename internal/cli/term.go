package cli

import "golang.org/x/sys/unix"

func termios(fd int) (*unix.Termios, error) { return unix.IoctlGetTermios(fd, unix.TCGETS) }

// termColumns is the width of the terminal on fd, 0 when it is not one or
// does not say.
func termColumns(fd int) int {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
