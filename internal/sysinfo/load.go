package sysinfo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/rootfs"
)

// Load is how busy the machine was at one instant, as a run records it at
// its start and its end: the one-minute load average, the CPU time counters
// the steal share is computed from, and the other sectax processes that
// were measuring beside it.
type Load struct {
	At time.Time `json:"at"`
	// Load1 is the one-minute load average (/proc/loadavg); nil when the
	// file could not be read.
	Load1 *float64 `json:"load1,omitempty"`
	// CPUSeconds is the time every CPU has spent since boot, all states
	// summed, and StealSeconds the part a hypervisor gave to others
	// (/proc/stat's cpu line, USER_HZ ticks of 1/100 s); nil when unread.
	CPUSeconds   *float64 `json:"cpu_s,omitempty"`
	StealSeconds *float64 `json:"steal_s,omitempty"`
	// OtherSectax counts the sectax processes running that are neither
	// this one nor its children (another run, a lab, a campaign).
	OtherSectax int `json:"other_sectax"`
}

// userHZ is the unit of /proc/stat's counters (USER_HZ, 100 on every
// architecture Linux exposes to user space).
const userHZ = 100

// ReadLoad reads the machine's load below root through the one rootfs.FS
// reader; self is this process's id (its own and its children's sectax
// processes are not "other"). The fields it cannot read stay nil, and the
// error says which file failed; a Load is returned all the same.
func ReadLoad(root string, self int, now time.Time) (Load, error) {
	l := Load{At: now.UTC()}
	fs, err := rootfs.Open(root)
	if err != nil {
		return l, err
	}
	var errs []string
	if text, err := fs.ReadText("proc/loadavg"); err != nil {
		errs = append(errs, err.Error())
	} else if v, err := ParseLoadAvg(text); err != nil {
		errs = append(errs, "/proc/loadavg: "+err.Error())
	} else {
		l.Load1 = &v
	}
	if text, err := fs.ReadText("proc/stat"); err != nil {
		errs = append(errs, err.Error())
	} else if total, steal, err := ParseCPUTimes(text); err != nil {
		errs = append(errs, "/proc/stat: "+err.Error())
	} else {
		l.CPUSeconds, l.StealSeconds = &total, &steal
	}
	l.OtherSectax = otherSectax(fs, self)
	if len(errs) > 0 {
		return l, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return l, nil
}

// ParseLoadAvg reads the first field of /proc/loadavg ("0.42 0.30 0.25
// 1/123 4567"): a finite, non-negative number.
func ParseLoadAvg(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a load average", f[0])
	}
	return v, nil
}

// ParseCPUTimes reads the aggregate "cpu" line of /proc/stat ("cpu  user
// nice system idle iowait irq softirq steal guest guest_nice"): the sum
// of its first eight fields (guest time is already inside user time) and
// the steal field, in seconds. A kernel before 2.6.11 has no steal field:
// steal is then 0.
func ParseCPUTimes(s string) (total, steal float64, err error) {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 5 {
			return 0, 0, fmt.Errorf("the cpu line has %d fields, want at least 4 counters", len(f)-1)
		}
		for i, x := range f[1:min(len(f), 9)] {
			v, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("cpu counter %d %q is not a whole number", i+1, x)
			}
			total += float64(v) / userHZ
			if i == 7 {
				steal = float64(v) / userHZ
			}
		}
		return total, steal, nil
	}
	return 0, 0, fmt.Errorf("no cpu line")
}

// otherSectax counts the processes named sectax below root's /proc that
// are not self and whose parent is not self (its workers re-execute
// sectax). /proc/PID/status is read by StatusValue, the one reader of
// status lines.
func otherSectax(fs *rootfs.FS, self int) int {
	ents, err := fs.ReadDir("proc")
	if err != nil {
		return 0
	}
	n := 0
	me := strconv.Itoa(self)
	for _, e := range ents {
		pid := e.Name()
		if _, err := strconv.Atoi(pid); err != nil || pid == me {
			continue
		}
		text, err := fs.ReadText("proc/" + pid + "/status")
		if err != nil {
			continue // gone, or not ours to read
		}
		name, _ := StatusValue(text, "Name")
		ppid, _ := StatusValue(text, "PPid")
		if name == "sectax" && ppid != me {
			n++
		}
	}
	return n
}
