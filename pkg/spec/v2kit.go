package spec

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"

	"gopkg.in/yaml.v3"
)

// v2SpecFiles are the names of a v2 kit's descriptor.
var v2SpecFiles = []string{"spec.yaml"}

// locateV2 returns the descriptor of a v2 kit in dir (a spec.yaml whose
// schemaVersion is "2"), or "".
func locateV2(fsys fs.FS, dir string) string {
	for _, n := range v2SpecFiles {
		name := path.Join(dir, n)
		if src, tooBig, err := readLimited(fsys, name, MaxDescriptorBytes); err == nil && tooBig < 0 && isV2Descriptor(src) {
			return name
		}
	}
	return ""
}

// isV2Descriptor reports a YAML document without the kit syntax line whose
// top-level schemaVersion is 2 (quoted or not).
func isV2Descriptor(src []byte) bool {
	first, _, _ := bytes.Cut(src, []byte("\n"))
	if isSyntaxLine(string(first)) {
		return false
	}
	var head struct {
		SchemaVersion any `yaml:"schemaVersion"`
	}
	if yaml.Unmarshal(src, &head) != nil {
		return false
	}
	return fmt.Sprint(head.SchemaVersion) == "2"
}

// v2KitError is the one problem of a v2 kit's spec.yaml: kitsmith judges
// v3 kits, and migrate turns a v2 kit into one.
func v2KitError(k *Kit, src []byte) *Error {
	line := 1
	for i, l := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("schemaVersion:")) {
			line = i + 1
			break
		}
	}
	return &Error{Range: Range{Start: Pos{File: k.Path, Line: line, Col: 1}}, Code: "v2-kit",
		Msg: fmt.Sprintf("this is a v2 kit (%s with schemaVersion \"2\"), which kitsmith does not judge: run `kitsmith migrate %s` to write its v3 descriptor and recipe", path.Base(k.Path), k.Dir)}
}
