package sysinfo

import (
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/rootfs"
)

// vulnDir is where the kernel lists CPU vulnerabilities.
const vulnDir = "sys/devices/system/cpu/vulnerabilities" // VulnerabilitiesDir below the root

// vulnerabilities reads every file of the vulnerabilities directory.
func (c *collector) vulnerabilities(s *Snapshot) {
	// Note: sysfs.FS.CPUVulnerabilities fails as a whole when one file is
	// unreadable and drops the raw text, so the directory is read here:
	// every file that exists is listed, whatever its name.
	entries, err := c.readDir(vulnDir)
	if err != nil {
		c.note(vulnDir, err)
		return
	}
	s.Vulnerabilities = []mitigation.Vulnerability{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		rel := vulnDir + "/" + e.Name()
		raw, err := c.fs.ReadText(rel)
		if err != nil {
			c.note(rel, err)
			s.Vulnerabilities = append(s.Vulnerabilities, mitigation.Vulnerability{
				Name: e.Name(), State: mitigation.Unknown, Mitigation: "unreadable: " + rootfs.ErrText(err), Fields: map[string]string{}})
			continue
		}
		s.Vulnerabilities = append(s.Vulnerabilities, mitigation.ParseVulnerability(e.Name(), raw))
	}
	slices.SortFunc(s.Vulnerabilities, func(a, b mitigation.Vulnerability) int { return strings.Compare(a.Name, b.Name) })
	s.VulnerabilityCounts = mitigation.Count(s.Vulnerabilities)
	s.Fingerprint.Vulnerabilities = hashVulnerabilities(s.Vulnerabilities)
}
