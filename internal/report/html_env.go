package report

import (
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// htmlEnvironment lays out the environments of every side side by side,
// A first, and every vulnerability file with what it protects: a row per
// property in the order the first comparison that has it gives, marked
// where any side differs from A.
func htmlEnvironment(c *compare.Comparison) (env, vulns []htmlEnvRow) {
	n := len(c.Comparisons) + 1
	sides := sideInfos(c)
	published := false
	for _, s := range sides {
		published = published || s.Published
	}
	if published {
		as, src := htmlEnvRow{Name: "published as"}, htmlEnvRow{Name: "source"}
		for _, s := range sides {
			as.Values = append(as.Values, orDash(s.Environment))
			src.Values = append(src.Values, orDash(s.Source))
		}
		env = append(env, as, src)
	}
	index := map[string]int{}
	row := func(rows *[]htmlEnvRow, key, name string) *htmlEnvRow {
		i, ok := index[key]
		if !ok {
			i = len(*rows)
			index[key] = i
			r := htmlEnvRow{Name: name, Values: make([]string, n)}
			for k := range r.Values {
				r.Values[k] = none
			}
			*rows = append(*rows, r)
		}
		return &(*rows)[i]
	}
	for s, rep := range c.Comparisons {
		for _, e := range rep.Environment {
			name, a, b := e.Name, e.A, e.B
			if e.Path == "memory.total_bytes" { // a reader's units, not bytes
				name, a, b = "memory", memoryText(a), memoryText(b)
			}
			r := row(&env, "env\x00"+e.Path+"\x00"+name, name)
			r.Code = e.Path == "cmdline.raw"
			r.Values[0], r.Values[s+1] = orDash(a), orDash(b)
			r.Differs = r.Differs || e.Differs
		}
	}
	for s, rep := range c.Comparisons {
		for _, v := range rep.Vulnerabilities {
			r := row(&vulns, "vuln\x00"+v.Name, v.Name)
			r.Values[0], r.Values[s+1] = recorded(v.A, v.RecordedA), recorded(v.B, v.RecordedB)
			r.Differs = r.Differs || v.Differs
			if v.OneLiner != "" {
				r.Explain = v.OneLiner
			}
		}
	}
	return env, vulns
}

// recorded is a vulnerability file's text as a side records it.
func recorded(v string, ok bool) string {
	if !ok {
		return "(not recorded)"
	}
	return orDash(v)
}

// memoryText is a side's memory.total_bytes (one value, or several joined
// by " | ") in GiB, as 'sectax env' writes it; a value that is no byte
// count stays as it is.
func memoryText(v string) string {
	parts := strings.Split(v, " | ")
	for i, p := range parts {
		if n, err := strconv.ParseUint(p, 10, 64); err == nil {
			parts[i] = gibText(float64(n))
		}
	}
	return strings.Join(parts, " | ")
}
