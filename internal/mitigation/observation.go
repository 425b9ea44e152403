package mitigation

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Observation is one boot of a real kernel, asked with a command line what
// it does: the kernel is the model's oracle. `sectax corpus boot` records
// observations (internal/lab, one JSON line each, gzipped) under
// testdata/corpus/, and the replay test checks Predict against every one.
// A mismatch is fixed in the model, never in an observation.
type Observation struct {
	// Release is /proc/sys/kernel/osrelease, Version /proc/version whole
	// (it holds the full stable version a distribution's release may hide).
	Release string `json:"release"`
	Version string `json:"version"`
	// Image is the SHA-256 of the kernel image booted.
	Image string `json:"image"`
	// CPUModel is the QEMU CPU model (-cpu) and Accel the accelerator
	// ("tcg"): under TCG the CPU the guest kernel sees is the model's.
	CPUModel string `json:"cpu_model"`
	Accel    string `json:"accel"`
	// Threads are the vCPUs per core QEMU gave the guest (-smp 2,threads=2:
	// two SMT siblings; 1: two cores without SMT).
	Threads int `json:"threads"`
	// Entry is "pvh" for a boot started at the kernel's PVH entry from the
	// kernel the host unpacked (vm.Direct); absent, through the bzImage
	// (its own decompressor), as every boot before 2026-12-07.
	Entry string `json:"entry,omitempty"`
	// The guest's CPU as its kernel printed it (/proc/cpuinfo).
	Arch     string `json:"arch"`
	Vendor   string `json:"vendor"`
	Family   string `json:"family"`
	Model    string `json:"model"`
	Stepping string `json:"stepping"`
	// Platform is what sysinfo.Snapshot.Machine takes it for (vm for a guest
	// that sees its hypervisor).
	Platform string `json:"platform"`
	// NoGlobalSwitch is a kernel built without CONFIG_CPU_MITIGATIONS.
	NoGlobalSwitch bool `json:"no_global_switch,omitempty"`
	// Params are the parameters asked for (the lab's console parameters
	// not included); Cmdline is /proc/cmdline as the guest read it.
	Params  string `json:"params"`
	Cmdline string `json:"cmdline"`
	// SMTControl and SMTActive are /sys/devices/system/cpu/smt/control and
	// active ("" and null when absent).
	SMTControl string `json:"smt_control"`
	SMTActive  *bool  `json:"smt_active"`
	// Files are the vulnerability files by name, their text without the
	// trailing newline; null when the folder is absent.
	Files map[string]string `json:"files"`
}

// Machine is the machine the observation's kernel ran on, as the model
// takes it, with the vulnerability files of this boot.
func (o Observation) Machine() Machine {
	var vulns []Vulnerability
	if o.Files != nil {
		vulns = []Vulnerability{}
		for _, name := range slices.Sorted(maps.Keys(o.Files)) {
			vulns = append(vulns, ParseVulnerability(name, o.Files[name]))
		}
	}
	m := NewMachine(o.Arch, o.Vendor, o.Family, o.Release, o.Platform, vulns)
	m.NoGlobalSwitch = o.NoGlobalSwitch
	m.Version = o.Version
	return m
}

// ReadObservations reads a corpus file: gzipped JSON lines (or plain
// ones), one Observation each; an unknown field is an error.
func ReadObservations(r io.Reader) ([]Observation, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		in = zr
	}
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var out []Observation
	for {
		var o Observation
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return out, fmt.Errorf("corpus line %d: %w", len(out)+1, err)
		}
		out = append(out, o)
	}
}

// EncodeObservations is a corpus file: the observations sorted by kernel
// release, CPU model, threads per core (2 first) and parameters, one JSON line each, gzipped.
func EncodeObservations(obs []Observation) ([]byte, error) {
	sorted := slices.Clone(obs)
	slices.SortStableFunc(sorted, func(a, b Observation) int {
		if c := strings.Compare(a.Release+"\x00"+a.CPUModel, b.Release+"\x00"+b.CPUModel); c != 0 {
			return c
		}
		if a.Threads != b.Threads {
			return b.Threads - a.Threads
		}
		return strings.Compare(a.Params, b.Params)
	})
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, o := range sorted {
		if err := enc.Encode(o); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
