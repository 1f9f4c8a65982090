package migrate

import (
	"bytes"
	"io/fs"
	"path"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// carry reads the files the recipe copies from the kit (files/home and the
// v2 Dockerfile's COPY and ADD sources), for a caller that writes the
// output elsewhere and for the lint of the result. Links that stay in the
// kit are kept as links; one whose target is not carried with it is an
// action, since the image would get a link to nothing.
func (m *migrator) carry() {
	if m.err != nil {
		return
	}
	seen := map[string]bool{}
	for _, c := range m.carried {
		if m.nested(c) {
			continue // walked with the carried path it lies under
		}
		err := m.kfs.walk(c, func(e kitEntry) error {
			if seen[e.name] { // under two carried paths (files/home and a COPY source)
				return nil
			}
			seen[e.name] = true
			f := File{Name: e.name, Data: e.data, Mode: e.mode, Link: e.link}
			m.carriedFiles = append(m.carriedFiles, f)
			display := m.kfs.displayPath(e.name)
			switch {
			case e.link != "" && !m.exists(e.target):
				m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "carried-link", Action: true,
					Message: "a symbolic link to " + e.link + ", which does not exist in the kit: the image gets a link to nothing; remove it or add the file"})
			case e.link != "" && !m.isCarried(e.target):
				m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "carried-link", Action: true,
					Message: "a symbolic link to " + e.link + ", which is not copied into the image with it: the image gets a link to nothing; copy the file it names instead"})
			case strings.HasPrefix(e.name, "files/home/") && bytes.Contains(e.data, []byte("${{")):
				m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "files-arg-ref", Action: true,
					Message: "v2 expanded kit arg references in files/, a recipe COPY does not: make it a lifecycle file (whose content is expanded) or a build arg"})
			}
			return nil
		})
		if err != nil {
			m.fail(err)
			return
		}
	}
}

// isCarried reports whether the kit path rel lies under a carried path.
func (m *migrator) isCarried(rel string) bool {
	for _, c := range m.carried {
		if rel == c || strings.HasPrefix(rel, c+"/") || c == "." {
			return true
		}
	}
	return path.Clean(rel) == "."
}

// nested reports whether the carried path c lies under another carried
// path.
func (m *migrator) nested(c string) bool {
	for _, o := range m.carried {
		if o != c && (o == "." || strings.HasPrefix(c, o+"/")) {
			return true
		}
	}
	return false
}

// exists reports whether the kit path rel exists (links followed).
func (m *migrator) exists(rel string) bool {
	_, err := fs.Stat(m.kfs.fsys, path.Join(m.kfs.dir, rel))
	return err == nil
}
