package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Locate returns the descriptor file of the kit directory dir in fsys
// (SPEC-v3 §3): <dirName>.yaml (or .yml) when present; otherwise the single
// *.yaml/*.yml file whose first line is the kit syntax line; otherwise the
// single Dockerfile (Dockerfile, *.dockerfile, Dockerfile.*) carrying a
// "# kit:" comment block; otherwise a v2 kit's spec.yaml (schemaVersion
// "2"), which Load reports as a v2 kit to migrate. It fails with ErrNoKit
// when there is none and
// ErrAmbiguousKit, listing the candidates, when there are several.
func Locate(fsys fs.FS, dir, dirName string) (string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return "", err
	}
	for _, ext := range []string{".yaml", ".yml"} {
		if dirName == "" || dirName == "." {
			break
		}
		for _, e := range entries {
			if e.Name() == dirName+ext && !e.IsDir() {
				return path.Join(dir, e.Name()), nil
			}
		}
	}
	var yamls, dockerfiles, oversized []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := path.Join(dir, e.Name())
		switch {
		case isYAMLName(name):
			if first, err := firstLine(fsys, name); err == nil && isSyntaxLine(first) {
				yamls = append(yamls, name)
			}
		case isDockerfileName(e.Name()):
			// The comment block opens the file: a Dockerfile too big to
			// load is still found by its head, and refused by Load with
			// its size.
			if head, err := readHead(fsys, name, maxFileBytes+1); err == nil {
				if _, _, ok := ExtractComment(head[:min(len(head), maxFileBytes)]); ok {
					dockerfiles = append(dockerfiles, name)
				} else if len(head) > maxFileBytes {
					oversized = append(oversized, name)
				}
			}
		}
	}
	if len(yamls) == 0 && len(dockerfiles) == 0 && len(oversized) == 1 {
		dockerfiles = oversized // Load reports its size
	}
	for _, c := range [][]string{yamls, dockerfiles} {
		switch len(c) {
		case 0:
			continue
		case 1:
			return c[0], nil
		default:
			slices.Sort(c)
			return "", &LocateError{Dir: dir, DirName: dirName, Candidates: c, Err: ErrAmbiguousKit}
		}
	}
	if v2 := locateV2(fsys, dir); v2 != "" {
		return v2, nil // Load reports it as a v2 kit
	}
	return "", &LocateError{Dir: dir, DirName: dirName, Err: ErrNoKit}
}

// LocateError is a kit directory without exactly one descriptor. Err is
// ErrNoKit or ErrAmbiguousKit.
type LocateError struct {
	// Dir is the kit directory; Candidates the descriptor files found in
	// it (several for ErrAmbiguousKit).
	Dir        string
	DirName    string
	Candidates []string
	Err        error
}

// Error lists the candidates, or says what a kit directory holds.
func (e *LocateError) Error() string {
	if errors.Is(e.Err, ErrAmbiguousKit) {
		return fmt.Sprintf("%v in %s: %s; name the descriptor file explicitly or rename one after the directory (%s.yaml)",
			e.Err, e.Dir, strings.Join(e.Candidates, ", "), e.DirName)
	}
	return fmt.Sprintf("%v in %s: expected %s.yaml, a *.yaml whose first line is %q, or a Dockerfile with a %q block",
		e.Err, e.Dir, e.DirName, SyntaxLine, CommentMarker)
}

// Unwrap returns ErrNoKit or ErrAmbiguousKit.
func (e *LocateError) Unwrap() error { return e.Err }

func isSyntaxLine(line string) bool {
	line = strings.TrimSpace(line)
	return line == SyntaxLine || line == RuntimeSyntaxLine
}

func isDockerfileName(name string) bool {
	lower := strings.ToLower(name)
	return lower == "dockerfile" || strings.HasSuffix(lower, ".dockerfile") || strings.HasPrefix(lower, "dockerfile.")
}

// readHead reads at most limit bytes from the start of a regular file.
func readHead(fsys fs.FS, name string, limit int) ([]byte, error) {
	if err := checkRegular(fsys, name); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)))
}

func firstLine(fsys fs.FS, name string) (string, error) {
	if err := checkRegular(fsys, name); err != nil {
		return "", err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return strings.TrimRight(line, "\r"), nil
}

func isYAMLName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
