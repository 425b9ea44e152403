package lab

import (
	"fmt"
)

// MaxBoots is the most boots per kernel and configuration (--boots): the
// plan holds every boot, and 50 boots of each are far more than a
// comparison with the boot as the unit needs.
const MaxBoots = 50

// CheckBoots refuses a --boots outside 1..MaxBoots, naming the maximum.
func CheckBoots(n int) error {
	if n < 1 || n > MaxBoots {
		return fmt.Errorf("--boots %d: give 1 to %d boots per kernel and configuration (2 or more make the boot the unit of the comparison)", n, MaxBoots)
	}
	return nil
}
