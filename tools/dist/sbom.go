package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// sbom is the CycloneDX bill of materials (JSON) of the binary at bin: the
// main module and every module 'go version -m' lists for it, read from its
// build information, each with its Go purl and the SHA-256 of its module
// sum. The BOM's time is the release's, its serial number is absent (a
// random one would differ between two runs).
func (r *release) sbom(bin string) ([]byte, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("read the build information of %s: %w", bin, err)
	}
	bom := cdx.NewBOM()
	main := component(cdx.ComponentTypeApplication, &info.Main)
	main.Version = r.version
	main.PackageURL = purl(info.Main.Path, r.version)
	main.BOMRef = main.PackageURL
	props := []cdx.Property{{Name: "go", Value: info.GoVersion}, {Name: "vcs.revision", Value: r.commit}}
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "-ldflags":
			props = append(props, cdx.Property{Name: "build " + s.Key, Value: s.Value})
		}
	}
	main.Properties = &props
	bom.Metadata = &cdx.Metadata{
		Timestamp: r.date.UTC().Format(time.RFC3339),
		Component: &main,
	}
	var comps []cdx.Component
	var refs []string
	for _, dep := range info.Deps {
		c := component(cdx.ComponentTypeLibrary, dep)
		comps = append(comps, c)
		refs = append(refs, c.BOMRef)
	}
	bom.Components = &comps
	bom.Dependencies = &[]cdx.Dependency{{Ref: main.BOMRef, Dependencies: &refs}}
	var buf bytes.Buffer
	if err := cdx.NewBOMEncoder(&buf, cdx.BOMFileFormatJSON).SetPretty(true).Encode(bom); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// component is one module as CycloneDX says it; a module replaced by
// another (go.mod's replace) names its replacement in a property.
func component(typ cdx.ComponentType, m *debug.Module) cdx.Component {
	c := cdx.Component{Type: typ, Name: m.Path, Version: m.Version, PackageURL: purl(m.Path, m.Version)}
	c.BOMRef = c.PackageURL
	sum := m.Sum
	if m.Replace != nil {
		props := []cdx.Property{{Name: "replaced by", Value: strings.TrimSpace(m.Replace.Path + " " + m.Replace.Version)}}
		c.Properties = &props
		sum = m.Replace.Sum
	}
	// h1: is the base64 SHA-256 of the module's file list (go.sum's).
	if h, ok := strings.CutPrefix(sum, "h1:"); ok {
		if raw, err := base64.StdEncoding.DecodeString(h); err == nil && len(raw) == 32 {
			c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(raw)}}
		}
	}
	return c
}

// purl is a Go module's package URL.
func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + version
}
