// Package perfbench runs the real `perf bench` with arguments equivalent to
// a native workload's parameters and parses its output into the same result
// model, so that the two engines can be compared side by side.
package perfbench

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/workload"
)

var (
	reHeader   = regexp.MustCompile(`^# Running '([a-z]+)/([a-z0-9-]+)' benchmark:$`)
	reSysExec  = regexp.MustCompile(`^# Executed ([0-9.,' ]+) (getppid|getpgid|fork|execve)\(\) calls$`)
	rePipeExec = regexp.MustCompile(`^# Executed (-?[0-9.,' ]+) pipe operations between (two|\d+) (processes|threads)$`)
	reMsgHdr1  = regexp.MustCompile(`^# (\d+) sender and receiver (processes|threads) per group$`)
	reMsgHdr2  = regexp.MustCompile(`^# (\d+) groups == (\d+) (processes|threads) run$`)
	reTotal    = regexp.MustCompile(`^\s*Total time: (\d+)\.(\d{3}) \[sec\]$`)
	reUsecs    = regexp.MustCompile(`^\s*(-?nan|-?inf|[0-9.,]+) usecs/op$`)
	reOps      = regexp.MustCompile(`^\s*(-?[0-9.,' ]+) ops/sec$`)
)

// Parse reads the default-format output of one perf bench run. It accepts
// the grouping and decimal separators of other locales, though sectax runs
// perf with LC_ALL=C.
func Parse(out []byte) (workload.PerfOutput, error) {
	o := workload.PerfOutput{UsecsPerOp: math.NaN(), OpsPerSec: math.NaN()}
	hasTotal := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		var m []string
		switch {
		case match(reHeader, t, &m):
			o.Collection, o.Bench = m[1], m[2]
		case match(reSysExec, t, &m):
			n, err := parseInt(m[1])
			if err != nil {
				return o, fmt.Errorf("line %d: %w", line, err)
			}
			o.Executed = n
		case match(rePipeExec, t, &m):
			n, err := parseInt(m[1])
			if err != nil {
				return o, fmt.Errorf("line %d: %w", line, err)
			}
			o.Executed, o.Tasks = n, m[3]
		case match(reMsgHdr1, t, &m):
			o.Tasks = m[2]
		case match(reMsgHdr2, t, &m):
			o.Groups, _ = strconv.ParseInt(m[1], 10, 64)
			o.Workers, _ = strconv.ParseInt(m[2], 10, 64)
			o.Tasks = m[3]
		case match(reTotal, t, &m):
			sec, err1 := strconv.ParseInt(m[1], 10, 64)
			ms, err2 := strconv.ParseInt(m[2], 10, 64)
			if err1 != nil || err2 != nil {
				return o, fmt.Errorf("line %d: bad total time %q", line, t)
			}
			o.TotalSec = float64(sec) + float64(ms)/1000
			hasTotal = true
		case match(reUsecs, t, &m):
			v, err := parseFloat(m[1])
			if err != nil {
				return o, fmt.Errorf("line %d: %w", line, err)
			}
			o.UsecsPerOp = v
		case match(reOps, t, &m):
			n, err := parseInt(m[1])
			if err != nil {
				return o, fmt.Errorf("line %d: %w", line, err)
			}
			o.OpsPerSec = float64(n)
		default:
			// perf prints usage and errors on stderr, which sectax keeps
			// apart; anything else here is a format this parser does not
			// know, and guessing would be worse than failing.
			return o, fmt.Errorf("line %d: unexpected perf output %q", line, t)
		}
	}
	if err := sc.Err(); err != nil {
		return o, err
	}
	if o.Collection == "" {
		return o, fmt.Errorf("no \"# Running '…' benchmark:\" header in perf output")
	}
	if !hasTotal {
		return o, fmt.Errorf("no \"Total time\" line in perf output")
	}
	return o, nil
}

func match(re *regexp.Regexp, s string, m *[]string) bool {
	*m = re.FindStringSubmatch(s)
	return *m != nil
}

// parseInt reads an integer that may carry thousands grouping (',', '.',
// '\” or spaces).
func parseInt(s string) (int64, error) {
	t := strings.Map(func(r rune) rune {
		if r == ',' || r == '.' || r == '\'' || r == ' ' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return n, nil
}

// parseFloat reads perf's "%lf" value: six decimals after '.' or ','.
func parseFloat(s string) (float64, error) {
	switch strings.TrimPrefix(s, "-") {
	case "nan":
		return math.NaN(), nil
	case "inf":
		return math.Inf(1), nil
	}
	t := s
	if i := strings.LastIndexAny(t, ".,"); i >= 0 {
		t = strings.NewReplacer(".", "", ",", "").Replace(t[:i]) + "." + t[i+1:]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}
