// Package version reports kitsmith's own name, version and source revision,
// as stamped by the linker or read from the module build information.
package version

import (
	"runtime/debug"
)

// Name is the tool name recorded in the built-by annotation.
const Name = "kitsmith"

// Set by the linker: -X github.com/kitsmith/kitsmith/internal/version.version=v0.1.0
// -X …/version.revision=<commit>.
var (
	version  = ""
	revision = ""
)

// Info is kitsmith's identity.
type Info struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Go       string `json:"go,omitempty"`
}

// Get returns the identity of the running binary. Version is "dev" when the
// binary was not stamped and carries no module version.
func Get() Info {
	info := Info{Name: Name, Version: version, Revision: revision}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.Go = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Revision == "" {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					info.Revision = s.Value
				}
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
}

// Document returns i as its JSON document.
func (i Info) Document() Document { return Document{FormatVersion: FormatVersion, Info: i} }
