package lint

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"mvdan.cc/sh/v3/syntax"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// runScript is a shell-form RUN instruction parsed as a script whose
// positions are the recipe's.
type runScript struct {
	node   *parser.Node
	script *Script
}

// runScripts returns the recipe's shell-form RUN instructions that parse,
// and RUN <<EOF here-documents; exec-form RUN is left out. The slice is
// shared: do not modify it.
func (in *Input) runScripts() []runScript {
	if !in.once("runs") {
		return in.runs
	}
	d := in.Recipe
	if d == nil {
		return nil
	}
	for _, n := range d.Instructions() {
		if !strings.EqualFold(n.Value, "run") || n.Attributes["json"] {
			continue
		}
		if len(n.Heredocs) > 0 {
			// RUN <<EOF: the shell runs the body, which starts on the
			// line after the instruction.
			if len(n.Heredocs) == 1 && n.Next != nil && strings.HasPrefix(n.Next.Value, "<<") {
				start := n.StartLine + 1
				if s := parseScript(n.Heredocs[0].Content, func(line, col int) spec.Pos { return d.Pos(start+line-1, col) }); s != nil {
					in.runs = append(in.runs, runScript{n, s})
				}
			}
			continue
		}
		lines := make([]string, 0, n.EndLine-n.StartLine+1)
		for ln := n.StartLine; ln <= n.EndLine; ln++ {
			lines = append(lines, d.line(ln))
		}
		lines[0] = blankInstruction(lines[0])
		start := n.StartLine
		if s := parseScript(strings.Join(lines, "\n"), func(line, col int) spec.Pos { return d.Pos(start+line-1, col) }); s != nil {
			in.runs = append(in.runs, runScript{n, s})
		}
	}
	return in.runs
}

// blankInstruction replaces the RUN keyword and its --flags with spaces,
// so that the rest of the line parses as shell with its columns kept.
func blankInstruction(line string) string {
	b := []byte(line)
	i := len(line) - len(strings.TrimLeft(line, " \t"))
	for i < len(b) && b[i] != ' ' && b[i] != '\t' { // the keyword
		b[i] = ' '
		i++
	}
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i+1 >= len(b) || b[i] != '-' || b[i+1] != '-' {
			return string(b)
		}
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			b[i] = ' '
			i++
		}
	}
}

// shells are interpreters that run a script read from their input.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ash": true, "ksh": true,
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true}

// readsStdin reports whether an interpreter call runs what it reads on
// stdin: no script operand (flags only, or - / -s).
func readsStdin(c Command) bool {
	for _, a := range c.Args {
		if a == "-c" || a == "-e" {
			return false
		}
		if a == "-" || a == "-s" || a == "--" {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// downloader reports curl and wget calls.
func downloader(c Command) bool { return c.Name == "curl" || c.Name == "wget" }

// commandsIn returns the commands of a node of s.
func commandsIn(n syntax.Node) []Command {
	var out []Command
	syntax.Walk(n, func(m syntax.Node) bool {
		if call, ok := m.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if c, ok := unwrap(call); ok {
				out = append(out, c)
			}
		}
		return true
	})
	return out
}

// verifies reports a command that checks a download: a checksum check, a
// signature or attestation verification.
func verifies(c Command) bool {
	switch c.Name {
	case "sha256sum", "sha512sum", "sha1sum", "shasum", "b2sum", "md5sum":
		return c.HasArg("-c") || c.HasArg("--check") || hasShortFlag(c.Args, 'c')
	case "cosign":
		return strings.HasPrefix(c.Sub(), "verify")
	case "gpg", "gpg2":
		return c.HasArg("--verify")
	case "gpgv", "slsa-verifier", "minisign", "signify":
		return true
	case "ssh-keygen":
		return c.HasArg("-Y") && c.HasArg("verify")
	case "openssl":
		return c.HasArg("-verify")
	case "gh":
		return c.Sub() == "attestation"
	}
	return false
}

// hasShortFlag reports a combined short flag group holding f (-ac).
func hasShortFlag(args []string, f byte) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f) >= 0 {
			return true
		}
	}
	return false
}

// downloadTarget returns the file a curl or wget call writes, as written
// in the script (expansions kept), or "".
func downloadTarget(s *Script, c Command) string {
	word := func(i int) string {
		if i < len(c.ArgWords) {
			return wordSource(s, c.ArgWords[i])
		}
		return c.Args[i]
	}
	remote := func() string {
		for i, a := range c.Args {
			if strings.Contains(a, "://") {
				if u, err := url.Parse(word(i)); err == nil {
					return path.Base(u.Path)
				}
			}
		}
		return ""
	}
	for i, a := range c.Args {
		switch {
		case c.Name == "curl" && (a == "-o" || a == "--output") && i+1 < len(c.Args):
			return word(i + 1)
		case c.Name == "curl" && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "o") && i+1 < len(c.Args):
			return word(i + 1) // -fsSLo FILE
		case c.Name == "curl" && (a == "-O" || a == "--remote-name"):
			return remote()
		case c.Name == "wget" && (a == "-O" || a == "--output-document") && i+1 < len(c.Args):
			if t := word(i + 1); t != "-" {
				return t
			}
			return ""
		case c.Name == "wget" && strings.HasPrefix(a, "--output-document="):
			return strings.TrimPrefix(a, "--output-document=")
		}
	}
	if c.Name == "wget" {
		return remote()
	}
	return ""
}

// makesExecutable returns the files a chmod or install call makes
// executable, as written.
func makesExecutable(s *Script, c Command) []string {
	text := func(i int) string { return wordSource(s, c.ArgWords[i]) }
	var out []string
	switch c.Name {
	case "chmod":
		mode := -1
		for i, a := range c.Args {
			if mode < 0 && !strings.HasPrefix(a, "-") {
				if !strings.Contains(a, "x") && !oddOctal(a) {
					return nil
				}
				mode = i
				continue
			}
			if mode >= 0 && i < len(c.ArgWords) {
				out = append(out, text(i))
			}
		}
	case "install":
		m, _, ok := valueFlag(c.Args, "-m", "--mode")
		if !ok || !oddOctal(m) && !strings.Contains(m, "x") {
			return nil
		}
		for i, a := range c.Args {
			if !strings.HasPrefix(a, "-") && a != m && i < len(c.ArgWords) {
				out = append(out, text(i))
				break // the source; the destination is its copy
			}
		}
	}
	return out
}

// oddOctal reports an octal mode with an execute bit.
func oddOctal(m string) bool { return isNumber(m) && executableMode(m) }

// sameFile reports whether two paths as written name the same file: equal,
// or one the bare base name of the other.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || !strings.Contains(a, "/") && path.Base(b) == a || !strings.Contains(b, "/") && path.Base(a) == b
}

// unverified returns the findings of one script: downloads piped or
// substituted into an interpreter, and downloaded files made executable
// when the script verifies nothing.
func unverified(s *Script, where string) []Finding {
	u := &unverifiedScan{s: s, where: where, reported: map[syntax.Pos]bool{}}
	u.piped()
	u.substituted()
	u.madeExecutable()
	for _, inner := range inlineScripts(s) {
		u.out = append(u.out, unverified(inner, where)...)
	}
	return u.out
}

// unverifiedScan collects the unverified-download findings of a script,
// one per download command.
type unverifiedScan struct {
	s        *Script
	where    string
	reported map[syntax.Pos]bool
	out      []Finding
}

func (u *unverifiedScan) report(c Command, msg string) {
	if u.reported[c.Pos] {
		return
	}
	u.reported[c.Pos] = true
	u.out = append(u.out, Finding{Range: u.s.Range(c.Pos, c.End), Message: msg})
}

// piped finds curl … | sh.
func (u *unverifiedScan) piped() {
	pipelines(u.s, func(left, right *syntax.Stmt) {
		rc := commandsIn(right)
		if len(rc) == 0 {
			return
		}
		var msg string
		switch dir, ok := extractDir(u.s, rc[0]); {
		case shells[rc[0].Name] && readsStdin(rc[0]):
			msg = "%s pipes a %s download straight into %s, which runs whatever the server sends: nothing checks it against a checksum or signature"
		case ok && onPath(dir):
			msg = "%s pipes a %s download into %s, which unpacks whatever the server sends into " + dir + ", on PATH: nothing checks it against a checksum or signature"
		default:
			return
		}
		for _, lc := range commandsIn(left) {
			if downloader(lc) {
				u.report(lc, fmt.Sprintf(msg, u.where, lc.Name, rc[0].Name))
				return
			}
		}
	})
}

// substituted finds sh -c "$(curl …)", bash <(curl …) and eval "$(wget …)".
func (u *unverifiedScan) substituted() {
	syntax.Walk(u.s.File, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		c, ok := unwrap(call)
		if !ok || !shells[c.Name] && c.Name != "eval" && c.Name != "source" && c.Name != "." {
			return true
		}
		for _, w := range c.ArgWords {
			syntax.Walk(w, func(m syntax.Node) bool {
				switch m.(type) {
				case *syntax.CmdSubst, *syntax.ProcSubst:
				default:
					return true
				}
				for _, dc := range commandsIn(m) {
					if downloader(dc) {
						u.report(dc, fmt.Sprintf("%s runs a %s download with %s, which runs whatever the server sends: nothing checks it against a checksum or signature", u.where, dc.Name, c.Name))
					}
				}
				return false
			})
		}
		return true
	})
}

// download is a file a curl or wget call writes.
type download struct {
	c         Command
	target    string
	extracted bool // unpacked by tar or unzip
}

// madeExecutable finds downloads made executable, directly or after
// unpacking, in a script that verifies nothing.
func (u *unverifiedScan) madeExecutable() {
	cmds := u.s.Commands()
	for _, c := range cmds {
		if verifies(c) {
			return
		}
	}
	var downloads []download
	for _, c := range cmds {
		if downloader(c) {
			if t := downloadTarget(u.s, c); t != "" {
				downloads = append(downloads, download{c: c, target: t})
			}
			continue
		}
		if dir, ok := extractDir(u.s, c); ok {
			for _, w := range c.ArgWords {
				for j, d := range downloads {
					if !sameFile(wordSource(u.s, w), d.target) {
						continue
					}
					downloads[j].extracted = true
					if onPath(dir) {
						u.report(d.c, fmt.Sprintf("%s downloads %s with %s and unpacks it into %s, on PATH, but never checks it against a checksum or signature", u.where, d.target, d.c.Name, dir))
					}
				}
			}
		}
		if f := runsFile(u.s, c); f != "" {
			for _, d := range downloads {
				if sameFile(f, d.target) {
					u.report(d.c, fmt.Sprintf("%s downloads %s with %s and runs it with %s, but never checks it against a checksum or signature", u.where, d.target, d.c.Name, c.Name))
				}
			}
		}
		// An archive keeps its files' modes: a program unpacked from it
		// runs without any chmod.
		if prog := writtenName(u.s, c); ranFromPath(prog) {
			for _, d := range downloads {
				if d.extracted {
					u.report(d.c, fmt.Sprintf("%s downloads %s with %s, unpacks it and runs %s, but never checks the download against a checksum or signature", u.where, d.target, d.c.Name, prog))
				}
			}
		}
		for _, f := range makesExecutable(u.s, c) {
			for _, d := range downloads {
				switch {
				case sameFile(f, d.target):
					u.report(d.c, fmt.Sprintf("%s downloads %s with %s and makes it executable, but never checks it against a checksum or signature", u.where, d.target, d.c.Name))
				case d.extracted:
					u.report(d.c, fmt.Sprintf("%s downloads %s with %s, unpacks it and makes %s executable, but never checks the download against a checksum or signature", u.where, d.target, d.c.Name, f))
				}
			}
		}
	}
}

// ranFromPath reports a program run by a path outside the system's own
// directories (/opt/tool/bin/tool, ./bin/tool): where an unpacked download
// lands.
func ranFromPath(name string) bool {
	if !strings.Contains(name, "/") {
		return false
	}
	for _, sys := range []string{"/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/"} {
		if strings.HasPrefix(name, sys) {
			return false
		}
	}
	return true
}

// writtenName is the program of c as the script writes it (a path, where
// Command.Name keeps only its base name).
func writtenName(s *Script, c Command) string {
	start, end := int(c.Pos.Offset()), int(c.End.Offset())
	if start >= end || end > len(s.Source) {
		return c.Name
	}
	return strings.Trim(s.Source[start:end], `"'`)
}

// wordSource is a word as written in the script, quotes removed.
func wordSource(s *Script, w *syntax.Word) string {
	if int(w.End().Offset()) > len(s.Source) {
		return ""
	}
	return strings.Trim(s.Source[w.Pos().Offset():w.End().Offset()], `"'`)
}

var unverifiedDownload = &Rule{
	ID:       "unverified-download",
	Severity: SeverityWarning,
	Summary:  "A hook or recipe RUN step runs downloaded code without checking a checksum or signature.",
	Rationale: "curl … | sh, wget -O- … | bash, sh -c \"$(curl …)\", a download run with sh file, a download unpacked " +
		"onto PATH (curl … | tar -xz -C /usr/local/bin, tar or unzip of a downloaded file into a bin directory: an archive " +
		"keeps its modes, so no chmod is needed) and a downloaded binary made executable run " +
		"whatever the server (or anyone between it and the sandbox) sends at that moment: a compromised release, a " +
		"moved tag or a tampered mirror lands in every sandbox that installs the kit, and nothing records what ran. " +
		"A checksum pinned in the kit (sha256sum -c), a signature (cosign verify-blob, gpg --verify, minisign) or an " +
		"attestation check (gh attestation verify) in the same script makes the download reproducible and tamper-evident. " +
		"A download piped into an interpreter cannot be checked at all. Hooks, the scripts they run, recipe RUN steps " +
		"and the literal scripts they hand to bash -c '…' are judged alike. Recipe ADD of a URL without --checksum, " +
		"later made executable, counts too.",
	Fix: "Download to a file, verify it (echo \"<sha256>  tool\" | sha256sum -c, or cosign verify-blob), then run or install it; in a recipe, ADD --checksum=sha256:<digest> <url> <dest>.",
	Check: func(in *Input) []Finding {
		var out []Finding
		seen := map[*Script]bool{}
		for _, h := range in.Hooks {
			if h.Script != nil && firstRun(seen, h) {
				out = append(out, unverified(h.Script, h.Label())...)
			}
		}
		for _, r := range in.runScripts() {
			out = append(out, unverified(r.script, "a recipe RUN step")...)
			out = append(out, in.unverifiedRunCopies(r, seen)...)
		}
		out = append(out, in.uncheckedAdds()...)
		return out
	},
}

// unverifiedRunCopies judges the scripts a recipe RUN step runs that an
// earlier COPY or ADD of its stage took from the kit (RUN sh
// /tmp/install.sh), each script once (seen records them).
func (in *Input) unverifiedRunCopies(r runScript, seen map[*Script]bool) []Finding {
	img := in.Recipe.stageAt(r.node) // its workdir follows the step's cd commands
	if len(img.copies) == 0 {
		return nil
	}
	var out []Finding
	for _, c := range r.script.Commands() {
		if wd, ok := cdTarget(img.workdir, c); ok {
			img.workdir = wd
			continue
		}
		target, shell := runTarget(&Hook{}, c)
		if target == "" {
			continue
		}
		s, via, _ := in.copiedScript(img, target, shell)
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, unverified(s, "a recipe RUN step (running "+via+")")...)
	}
	return out
}

// uncheckedAdds reports recipe ADD <url> <dest> without --checksum whose
// destination a later RUN step makes executable.
func (in *Input) uncheckedAdds() []Finding {
	d := in.Recipe
	if d == nil {
		return nil
	}
	type add struct {
		node *parser.Node
		dest string
		src  string
	}
	var adds []add
	var out []Finding
	reported := map[*parser.Node]bool{}
	runs := map[*parser.Node]*Script{}
	for _, r := range in.runScripts() {
		runs[r.node] = r.script
	}
	for _, n := range d.Instructions() {
		switch strings.ToLower(n.Value) {
		case "add":
			checked := false
			for _, f := range n.Flags {
				checked = checked || strings.HasPrefix(f, "--checksum")
			}
			var args []string
			for a := n.Next; a != nil; a = a.Next {
				args = append(args, a.Value)
			}
			if checked || len(args) < 2 || !strings.Contains(args[0], "://") {
				continue
			}
			dest := args[len(args)-1]
			if strings.HasSuffix(dest, "/") {
				if u, err := url.Parse(args[0]); err == nil {
					dest += path.Base(u.Path)
				}
			}
			adds = append(adds, add{n, dest, args[0]})
		case "run":
			s := runs[n]
			if s == nil {
				continue
			}
			for _, c := range s.Commands() {
				for _, f := range makesExecutable(s, c) {
					for _, a := range adds {
						if sameFile(f, a.dest) && !reported[a.node] {
							reported[a.node] = true
							r := spec.Range{Start: d.Pos(a.node.StartLine, 1)}
							if at, ok := d.find(a.node, a.src, d.start(a.node)); ok {
								r = d.rng(at, len(a.src))
							}
							out = append(out, Finding{Range: r, Message: fmt.Sprintf("ADD %s fetches a file without --checksum, and a later RUN step makes it executable; nothing checks what was downloaded", a.src)})
						}
					}
				}
			}
		}
	}
	return out
}
