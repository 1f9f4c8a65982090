package lint

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// recipeCopy is a COPY or ADD of kit files into the image the recipe
// builds.
type recipeCopy struct {
	// srcs are the sources, cleaned and relative to the kit directory
	// ("." is the whole directory); globs are kept.
	srcs []string
	// dest is the absolute destination in the image.
	dest string
	// intoDir reports a destination that is a directory: written with a
	// trailing slash, or the target of several sources.
	intoDir bool
}

// buildStage is what imageCopies tracks of one recipe stage.
type buildStage struct {
	workdir string // absolute, or "" when unknown
	copies  []recipeCopy
}

// stageAt returns the working directory and the copies of kit files of
// the stage that instruction stop is in, as they are just before it (at the
// end of the last stage, the image the recipe builds, when stop is nil):
// the copies of that stage and of the stages it is built FROM, in order,
// with WORKDIR-relative destinations resolved, and the kit files a COPY
// --from=<stage> takes from an earlier stage of the recipe. Copies from
// another image, ADD of URLs and git repositories, --parents copies,
// here-documents, and paths holding variables are left out; so are
// relative destinations under an unknown WORKDIR (a base image's).
func (d *Dockerfile) stageAt(stop *parser.Node) buildStage {
	if d == nil {
		return buildStage{}
	}
	stages := map[string]*buildStage{}
	var cur *buildStage
	index := 0
	for _, n := range d.Instructions() {
		if n == stop {
			break
		}
		switch kw := strings.ToLower(n.Value); {
		case kw == "from" && n.Next != nil:
			image := strings.ToLower(n.Next.Value)
			cur = &buildStage{}
			if image == "scratch" {
				cur.workdir = "/"
			}
			if base, ok := stages[image]; ok {
				cur.workdir, cur.copies = base.workdir, slices.Clone(base.copies)
			}
			if as := n.Next.Next; as != nil && strings.EqualFold(as.Value, "as") && as.Next != nil {
				stages[strings.ToLower(as.Next.Value)] = cur
			}
			stages[strconv.Itoa(index)] = cur
			index++
		case cur == nil:
		case kw == "workdir" && n.Next != nil:
			cur.workdir = resolveDir(cur.workdir, n.Next.Value)
		case kw == "copy" && fromStage(n.Flags) != "":
			if from, ok := stages[strings.ToLower(fromStage(n.Flags))]; ok {
				cur.copies = append(cur.copies, copiedFromStage(from, nodeWords(n), cur.workdir)...)
			}
		case kw == "copy" || kw == "add":
			if c, ok := parseCopy(n.Flags, nodeWords(n), len(n.Heredocs) > 0, kw == "add", cur.workdir); ok {
				cur.copies = append(cur.copies, c)
			}
		}
	}
	if cur == nil {
		return buildStage{}
	}
	return *cur
}

// resolveDir resolves dir against the working directory wd ("" when
// unknown); the result is "" when it cannot be known.
func resolveDir(wd, dir string) string {
	switch {
	case strings.Contains(dir, "$"):
		return ""
	case path.IsAbs(dir):
		return path.Clean(dir)
	case wd == "":
		return ""
	}
	return path.Join(wd, dir)
}

// parseCopy reads a COPY or ADD instruction's flags and words (sources,
// then the destination) into a recipeCopy, or false when it copies nothing
// from the kit directory that can be told.
func parseCopy(flags, words []string, heredoc, add bool, workdir string) (recipeCopy, bool) {
	for _, f := range flags {
		if strings.HasPrefix(f, "--from") || strings.HasPrefix(f, "--parents") {
			return recipeCopy{}, false
		}
	}
	if heredoc || len(words) < 2 {
		return recipeCopy{}, false
	}
	dest := words[len(words)-1]
	if strings.Contains(dest, "$") {
		return recipeCopy{}, false
	}
	c := recipeCopy{intoDir: strings.HasSuffix(dest, "/") || len(words) > 2 || dest == "." || dest == ".."}
	if c.dest = resolveDir(workdir, dest); c.dest == "" {
		return recipeCopy{}, false
	}
	for _, s := range words[:len(words)-1] {
		if strings.Contains(s, "$") || strings.HasPrefix(s, "<<") || add && (strings.Contains(s, "://") || strings.HasPrefix(s, "git@")) {
			continue
		}
		// Sources are relative to the build context, even when written
		// absolute, and cannot climb out of it.
		c.srcs = append(c.srcs, strings.TrimPrefix(path.Clean("/"+s), "/"))
	}
	return c, len(c.srcs) > 0
}

// nodeWords returns the words after an instruction's keyword.
func nodeWords(n *parser.Node) []string {
	var out []string
	for w := n.Next; w != nil; w = w.Next {
		out = append(out, w.Value)
	}
	return out
}

// candidates returns the kit files that could be at target (absolute,
// cleaned) in the image after c, most likely first.
func (c recipeCopy) candidates(target string) []string {
	var out []string
	for i := len(c.srcs) - 1; i >= 0; i-- { // a later source overwrites an earlier one
		src := c.srcs[i]
		if !c.intoDir && target == c.dest && !hasGlob(src) {
			out = append(out, src) // a file copied to dest
		}
		rel, ok := under(target, c.dest)
		if !ok {
			continue
		}
		switch {
		case hasGlob(src):
			if m, _ := path.Match(base(src), rel); m && !strings.Contains(rel, "/") {
				out = append(out, path.Join(path.Dir(src), rel))
			}
		default:
			if c.intoDir && rel == base(src) {
				out = append(out, src) // a file copied into dest
			}
			out = append(out, path.Join(src, rel)) // a directory's content copied into dest
		}
	}
	return out
}

// under returns target relative to dir, when target is inside it.
func under(target, dir string) (string, bool) {
	if dir == "/" {
		return strings.TrimPrefix(target, "/"), target != "/"
	}
	rel, ok := strings.CutPrefix(target, dir+"/")
	return rel, ok && rel != ""
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// pathDirs are where a program named without a slash is looked up.
var pathDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// copiedScript returns the script the recipe copies from the kit to the
// path a command runs (target, as written; relative to img's working
// directory), parsed, where it is in the image and its kit file; nil when
// the copies of img (as stageAt returns them) put no readable kit file
// there, or when shell is false (the file is run directly) and the file is
// no shell script by its #! line or its name.
func (in *Input) copiedScript(img buildStage, target string, shell bool) (*Script, string, string) {
	copies := img.copies
	if len(copies) == 0 {
		return nil, "", ""
	}
	var paths []string
	switch {
	case path.IsAbs(target):
		paths = []string{path.Clean(target)}
	default:
		if img.workdir != "" {
			paths = append(paths, path.Join(img.workdir, target))
		}
		if !strings.Contains(target, "/") && !shell {
			for _, d := range pathDirs {
				paths = append(paths, path.Join(d, target))
			}
		}
	}
	for _, p := range paths {
		for i := len(copies) - 1; i >= 0; i-- { // a later copy overwrites an earlier one
			for _, src := range copies[i].candidates(p) {
				s, found := in.kitScript(src)
				if !found {
					continue
				}
				if s == nil || !shell && !shellScript(src, s.Source) {
					return nil, "", ""
				}
				return s, p, src
			}
		}
	}
	return nil, "", ""
}

// kitFile is a kit file read for copiedScript: whether the kit has it as
// a regular file, and its content parsed as a shell script (nil when it
// does not parse).
type kitFile struct {
	found  bool
	script *Script
}

// kitScript reads and parses the kit file rel as a shell script, once per
// Input.
func (in *Input) kitScript(rel string) (*Script, bool) {
	if f, ok := in.kitFiles[rel]; ok {
		return f.script, f.found
	}
	if in.kitFiles == nil {
		in.kitFiles = map[string]kitFile{}
	}
	var f kitFile
	if data, err := in.Kit.ReadFile(rel); err == nil {
		file := in.Kit.FilePath(rel)
		in.sources[file] = data
		f = kitFile{found: true, script: parseScript(string(data), func(line, col int) spec.Pos { return spec.Pos{File: file, Line: line, Col: col} })}
	}
	in.kitFiles[rel] = f
	return f.script, f.found
}

// shellScript reports a file run directly that a shell interprets: its #!
// line names a shell, or it has none and a shell script's extension.
func shellScript(name, src string) bool {
	first, _, _ := strings.Cut(src, "\n")
	if !strings.HasPrefix(first, "#!") {
		return strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".bash")
	}
	f := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(f) > 1 && base(f[0]) == "env" {
		f = f[1:]
		if f[0] == "-S" && len(f) > 1 {
			f = f[1:]
		}
	}
	if len(f) == 0 {
		return false
	}
	return isShell(base(f[0]))
}

// cdTarget returns the working directory after c when c is a cd command,
// from wd ("" when unknown), and false for any other command.
func cdTarget(wd string, c Command) (string, bool) {
	if c.Name != "cd" {
		return wd, false
	}
	for _, a := range c.Args {
		switch {
		case a == "-P" || a == "-L" || a == "-e" || a == "--":
		case a == "" || a == "-" || strings.HasPrefix(a, "~"):
			return "", true // a variable, the previous directory, a home
		default:
			return resolveDir(wd, a), true
		}
	}
	return "", true // cd alone goes home
}

// isShell reports a shell program's name.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh":
		return true
	}
	return false
}

// image returns what the recipe's last stage holds of the kit, once per
// Input.
func (in *Input) image() buildStage {
	if in.once("image") {
		in.final = in.Recipe.stageAt(nil)
	}
	return in.final
}

// fromStage returns the --from value of a COPY's flags, or "".
func fromStage(flags []string) string {
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, "--from="); ok {
			return v
		}
	}
	return ""
}

// copiedFromStage returns the kit files a COPY --from=<stage> SRC… DEST
// brings into the current stage: every copy of the source stage whose
// destination is at or under a SRC, moved to the same place under DEST,
// and the kit files a SRC inside a copied directory may be. Globs and
// variables are left out.
func copiedFromStage(from *buildStage, words []string, workdir string) []recipeCopy {
	if len(words) < 2 {
		return nil
	}
	dest := words[len(words)-1]
	if strings.Contains(dest, "$") {
		return nil
	}
	intoDir := strings.HasSuffix(dest, "/") || len(words) > 2
	if dest = resolveDir(workdir, dest); dest == "" {
		return nil
	}
	var out []recipeCopy
	for _, src := range words[:len(words)-1] {
		if strings.Contains(src, "$") || hasGlob(src) || !path.IsAbs(src) {
			continue
		}
		src = path.Clean(src)
		for _, c := range from.copies {
			switch rel, under := under(c.dest, src); {
			case c.dest == src && intoDir && !c.intoDir:
				out = append(out, recipeCopy{srcs: c.srcs, dest: path.Join(dest, base(src))})
			case c.dest == src:
				out = append(out, recipeCopy{srcs: c.srcs, dest: dest, intoDir: c.intoDir})
			case under:
				out = append(out, recipeCopy{srcs: c.srcs, dest: path.Join(dest, rel), intoDir: c.intoDir})
			default:
				// SRC inside what c copied: the kit files that may be there.
				if files := c.candidates(src); len(files) > 0 {
					to := dest
					if intoDir {
						to = path.Join(dest, base(src))
					}
					out = append(out, recipeCopy{srcs: files, dest: to})
				}
			}
		}
	}
	return out
}
