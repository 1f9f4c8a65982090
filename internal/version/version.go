// Package version reports kitsmith's own name, version, source revision,
// build date and Go version, as stamped by the linker (release builds) or
// read from the module build information (go install and go build).
package version

import (
	"runtime"
	"runtime/debug"
)

// Name is the tool name recorded in the built-by annotation.
const Name = "kitsmith"

// Set by the linker (.goreleaser.yaml):
//
//	-X github.com/kitsmith/kitsmith/internal/version.version=v0.1.0
//	-X …/version.revision=<commit> -X …/version.date=<commit date, RFC 3339>
var (
	version  = ""
	revision = ""
	date     = ""
)

// Info is kitsmith's identity.
type Info struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	// Date is the commit date of Revision (RFC 3339), "" when unknown.
	Date string `json:"date,omitempty"`
	// Modified is true when the binary was built from a checkout with
	// uncommitted changes (from the build information).
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go,omitempty"`
}

// Get returns the identity of the running binary: what the linker stamped,
// else what debug.ReadBuildInfo reports (the module version of a go install
// PKG@VERSION build; vcs.revision, vcs.time and vcs.modified of a build in a
// git checkout). Version is "dev" when neither names one.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(version, revision, date, bi)
}

// fromBuild combines the linker's values with the build information (nil
// when there is none).
func fromBuild(version, revision, date string, bi *debug.BuildInfo) Info {
	info := Info{Name: Name, Version: version, Revision: revision, Date: date}
	if bi != nil {
		info.Go = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		stamped := info.Revision != ""
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && info.Revision == "":
				info.Revision = s.Value
			case s.Key == "vcs.time" && info.Date == "":
				info.Date = s.Value
			case s.Key == "vcs.modified" && !stamped:
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	return info
}

// FormatVersion is the formatVersion of Document.
const FormatVersion = 1

// Document is the JSON document of kitsmith version --format json.
type Document struct {
	// FormatVersion is FormatVersion.
	FormatVersion int `json:"formatVersion"`
	Info
	// Platform is the OS and architecture the binary runs on (linux/amd64).
	Platform string `json:"platform"`
}

// Document returns i as its JSON document.
func (i Info) Document() Document {
	return Document{FormatVersion: FormatVersion, Info: i, Platform: runtime.GOOS + "/" + runtime.GOARCH}
}
