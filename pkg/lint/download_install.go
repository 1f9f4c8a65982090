package lint

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// userBinDirs are a sandbox user's own directories on PATH, as scripts
// write them.
var userBinDirs = map[string]bool{"/root/bin": true, "/home/agent/bin": true, "~/bin": true, "$HOME/bin": true,
	"${HOME}/bin": true}

// onPath reports a directory, as written, that is on PATH: the system's
// bin directories and a user's ~/bin or ~/.local/bin.
func onPath(dir string) bool {
	if dir == "" {
		return false
	}
	d := strings.TrimRight(dir, "/")
	if d == "" {
		return false
	}
	if !strings.HasPrefix(d, "$") && !strings.HasPrefix(d, "~") {
		d = path.Clean(d)
	}
	return slices.Contains(pathDirs, d) || userBinDirs[d] || strings.HasSuffix(d, "/.local/bin")
}

// extractDir returns, for a tar, bsdtar or unzip call that unpacks an
// archive, the directory it unpacks into as written ("" for the working
// directory); ok is false for a call that does not unpack.
func extractDir(s *Script, c Command) (dir string, ok bool) {
	word := func(i int) string {
		if i < len(c.ArgWords) && s != nil {
			return wordSource(s, c.ArgWords[i])
		}
		return c.Args[i]
	}
	switch c.Name {
	case "unzip":
		for i, a := range c.Args {
			if a == "-d" && i+1 < len(c.Args) {
				return word(i + 1), true
			}
		}
		return "", true
	case "tar", "bsdtar", "gtar":
	default:
		return "", false
	}
	extract := false
	for i, a := range c.Args {
		switch {
		case a == "--extract" || a == "--get":
			extract = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'x') > 0:
			extract = true
		case i == 0 && a != "" && a[0] != '-' && strings.IndexByte(a, 'x') >= 0:
			extract = true // the old form: tar xzf file
		}
	}
	if !extract {
		return "", false
	}
	for i, a := range c.Args {
		switch {
		case (a == "-C" || a == "--directory") && i+1 < len(c.Args):
			dir = word(i + 1)
		case strings.HasPrefix(a, "--directory="):
			dir = strings.TrimPrefix(word(i), "--directory=")
		case len(a) > 2 && strings.HasPrefix(a, "-C") && a[2] != '-':
			dir = strings.TrimPrefix(word(i), "-C")
		}
	}
	return dir, true
}

// runsFile returns the file an interpreter call runs as its script (sh
// file, bash -e file, . file, python3 file), as written, or "".
func runsFile(s *Script, c Command) string {
	if !shells[c.Name] && c.Name != "." && c.Name != "source" {
		return ""
	}
	for i, a := range c.Args {
		if a == "-c" || a == "-e" && !isShell(c.Name) || a == "-m" {
			return "" // inline code or a module, not a file
		}
		if a == "-" || a == "-s" {
			return ""
		}
		if a != "" && strings.HasPrefix(a, "-") {
			continue
		}
		if i < len(c.ArgWords) {
			return wordSource(s, c.ArgWords[i])
		}
		return a
	}
	return ""
}

// inlineScripts returns the scripts that shell calls of s run as a literal
// string (bash -c '…', sh -ec "…"), parsed, with positions in s's file.
func inlineScripts(s *Script) []*Script {
	var out []*Script
	for _, c := range s.Commands() {
		if !isShell(c.Name) {
			continue
		}
		for i, a := range c.Args {
			if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") || !strings.Contains(a, "c") {
				if !strings.HasPrefix(a, "-") {
					break
				}
				continue
			}
			if i+1 >= len(c.ArgWords) {
				break
			}
			if inner := inlineScript(s, c.ArgWords[i+1]); inner != nil {
				out = append(out, inner)
			}
			break
		}
	}
	return out
}

// inlineScript parses a literal word as a script: a plain, single- or
// double-quoted string without expansions, whose content keeps its
// columns (an escape in a double-quoted string shifts the rest of its
// line by one).
func inlineScript(s *Script, w *syntax.Word) *Script {
	text, ok := WordText(w)
	if !ok || !strings.ContainsAny(text, " |;&") {
		return nil
	}
	line, col := int(w.Pos().Line()), int(w.Pos().Col())
	if len(w.Parts) > 0 {
		switch w.Parts[0].(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			col++ // the opening quote
		}
	}
	pos := func(l, c int) spec.Pos {
		if l == 1 {
			return s.pos(line, col+c-1)
		}
		return s.pos(line+l-1, c)
	}
	return parseScript(text, pos)
}
