package lint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"mvdan.cc/sh/v3/syntax"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Input is what rules see of one kit: the loaded kit with positions, its
// recipe parsed with BuildKit's Dockerfile parser, and every lifecycle hook
// and shell-like lifecycle file parsed with a real shell parser. Derived
// views are computed once and shared by the rules, so an Input is not safe
// for concurrent use.
type Input struct {
	// Kit is the loaded kit.
	Kit *spec.Kit
	// Recipe is the parsed content recipe, or nil.
	Recipe *Dockerfile
	// Hooks are every lifecycle install and startup hook, group members
	// included.
	Hooks []*Hook
	// Files are every lifecycle file.
	Files []*LifecycleFile
	// Entries are the descriptor's ordinary capability entries, group
	// members included, with types in the older com.docker.runtime
	// namespace spelled as their com.docker.sandbox equivalents.
	Entries []spec.Entry

	hasLongRunning bool
	registries     map[string][]registryContact // the default hosts egress-not-allowed infers
	sources        map[string][]byte
	yaml           []yamlLine
	yamlOrigins    []spec.LineOrigin
	hosts          []hostEntry
	injects        []injectDomain
	runs           []runScript
	final          buildStage         // what the recipe's last stage holds of the kit
	kitFiles       map[string]kitFile // kit files read for the scripts hooks run
	cached         map[string]bool    // which of yaml, hosts, injects, runs, image, tree are computed
	ytree          *yamlTree          // the descriptor parsed for fixes
}

// source returns the text of one of the kit's source files.
func (in *Input) source(file string) []byte { return in.sources[file] }

// once reports whether the view named key still has to be computed, and
// marks it computed.
func (in *Input) once(key string) bool {
	if in.cached[key] {
		return false
	}
	in.cached[key] = true
	return true
}

// Dockerfile is a parsed recipe.
type Dockerfile struct {
	// AST is the recipe as BuildKit's parser returns it.
	AST   *parser.Node
	lines []string
	pos   func(line, col int) spec.Pos
	vars  []RecipeVar // Vars, once computed
	done  bool
}

// Pos maps a recipe line and column (1-based) to a file position.
func (d *Dockerfile) Pos(line, col int) spec.Pos { return d.pos(line, col) }

// Instructions returns the recipe's instructions in order.
func (d *Dockerfile) Instructions() []*parser.Node { return d.AST.Children }

// Hook is a lifecycle install or startup hook.
type Hook struct {
	// Phase is "install" or "startup".
	Phase string
	// Index is the hook's position in its list.
	Index int
	// Field is the dotted path of the hook, e.g.
	// "capabilities[2].config.install[0]".
	Field string
	spec.Hook
	// Script is the shell script the hook runs, parsed; nil when the hook
	// is an argv that runs a program directly.
	Script *Script
	// Argv is the argument vector of a direct exec hook.
	Argv []string
	// Via is the path in the sandbox of the script the hook runs, when
	// this Hook stands for a staged script: a lifecycle file, or a kit
	// file the recipe copies there (then Source names it). Its Script is
	// the file's content, and it runs with the invoking hook's env, user
	// and phase.
	Via string
	// Source is the path, relative to the kit directory, of the kit file
	// the recipe copies to Via; "" for a lifecycle file or a hook.
	Source string
}

// Label names the hook in messages as spec errors and field paths number
// it, from 0: "hook install[0]", or "hook install[0] (running
// /opt/kit/bootstrap.sh)" for a staged script.
func (h *Hook) Label() string {
	if h.Via != "" {
		return fmt.Sprintf("hook %s[%d] (running %s)", h.Phase, h.Index, h.Via)
	}
	return fmt.Sprintf("hook %s[%d]", h.Phase, h.Index)
}

// Declares reports whether the hook lists name in its env.
func (h *Hook) Declares(name string) bool {
	for _, e := range h.Env {
		if e == name {
			return true
		}
	}
	return false
}

// LifecycleFile is a file a lifecycle@1 entry writes.
type LifecycleFile struct {
	// Index is the file's position in the files list.
	Index int
	// Field is the dotted path of the file entry, e.g.
	// "capabilities[2].config.files[0]".
	Field string
	spec.File
	// Script is the content parsed as shell when the file is shell-like
	// (rc, profile, *.sh, env files); otherwise nil.
	Script *Script
}

// NewInput parses what rules need from a loaded kit. Parse failures of a
// hook or recipe leave that part nil; the spec and syntax checks report
// them.
func NewInput(k *spec.Kit) *Input {
	in := &Input{Kit: k, sources: k.SourceFiles(), cached: map[string]bool{}}
	if k.Descriptor != nil {
		in.Entries = k.Descriptor.Entries()
		for i := range in.Entries { // com.docker.runtime spellings get the same rules
			in.Entries[i].Type = spec.CanonicalType(in.Entries[i].Type)
		}
	}
	in.Recipe = in.parseRecipe()
	for _, e := range in.Entries {
		if e.Type == spec.TypeLongRunning {
			in.hasLongRunning = true
		}
		if e.Type != spec.TypeLifecycle || e.Config == nil {
			continue
		}
		var lc spec.Lifecycle
		if spec.DecodeConfig(e.Config, &lc) != nil {
			continue
		}
		cf := e.Field() + ".config"
		for _, l := range []struct {
			phase string
			hooks []spec.Hook
		}{{"install", lc.Install}, {"startup", lc.Startup}} {
			for i, h := range l.hooks {
				in.Hooks = append(in.Hooks, in.newHook(l.phase, i, fmt.Sprintf("%s.%s[%d]", cf, l.phase, i), h))
			}
		}
		for i, f := range lc.Files {
			lf := &LifecycleFile{Index: i, Field: fmt.Sprintf("%s.files[%d]", cf, i), File: f}
			if shellLikeFile(f.Path) {
				lf.Script = parseScript(f.Content, in.Kit.ValuePos(lf.Field+".content"))
			}
			in.Files = append(in.Files, lf)
		}
	}
	in.Hooks = append(in.Hooks, in.stagedScripts()...)
	return in
}

// stagedScripts returns a Hook for every script a hook runs (bash
// /opt/kit/setup.sh, sh setup.sh, . /etc/profile.d/x.sh, /opt/kit/setup.sh)
// whose source is in the kit: a lifecycle file, or a kit file the recipe
// copies to that path. The hook rules see inside it.
func (in *Input) stagedScripts() []*Hook {
	if len(in.Files) == 0 && len(in.image().copies) == 0 {
		return nil
	}
	var out []*Hook
	for _, h := range in.Hooks {
		seen := map[string]bool{}
		img := in.image() // its workdir follows the hook's cd commands
		for _, c := range hookCommands(h) {
			if wd, ok := cdTarget(img.workdir, c); ok {
				img.workdir = wd
				continue
			}
			target, shell := runTarget(h, c)
			if target == "" {
				continue
			}
			field, via, src := h.Field, "", ""
			script := (*Script)(nil)
			if f := in.lifecycleFile(target); f != nil {
				field, via, script = f.Field, f.Path, f.Script
				if script == nil {
					script = parseScript(f.Content, in.contentPos(f))
				}
			} else {
				script, via, src = in.copiedScript(img, target, shell)
			}
			if script == nil || seen[via] {
				continue
			}
			seen[via] = true
			out = append(out, &Hook{Phase: h.Phase, Index: h.Index, Field: field, Hook: spec.Hook{Env: h.Env, User: h.User,
				Background: h.Background}, Script: script, Via: via, Source: src})
		}
	}
	return out
}

// firstRun reports whether h is the first hook of a loop to run its
// script (seen records them): rules that judge a script's text rather than
// the hook's env or phase report a staged script that several hooks run
// once. A hook without a script is always first.
func firstRun(seen map[*Script]bool, h *Hook) bool {
	if h.Script == nil {
		return true
	}
	if seen[h.Script] {
		return false
	}
	seen[h.Script] = true
	return true
}

// runTarget returns the file command c of hook h runs as a script, as
// written, and whether a shell reads it (sh file, . file) rather than the
// file being run itself; "" when c runs none (sh -c '…', a program).
func runTarget(h *Hook, c Command) (string, bool) {
	if isShell(c.Name) || c.Name == "." || c.Name == "source" {
		for i, a := range c.Args {
			if a == "-c" {
				return "", false // the script is inline, not a file
			}
			if a == "" && i < len(c.ArgWords) {
				if p, ok := homePath(c.ArgWords[i], h.User); ok {
					return p, true
				}
			}
			if a != "" && !strings.HasPrefix(a, "-") {
				return homeTilde(a, h.User), true
			}
		}
		return "", false
	}
	if c.Call == nil {
		if len(h.Argv) > 0 {
			return h.Argv[0], false
		}
		return c.Name, false
	}
	for _, w := range c.Call.Args {
		if w.Pos() == c.Pos {
			if p, ok := homePath(w, h.User); ok {
				return p, false
			}
			t, _ := WordText(w)
			return homeTilde(t, h.User), false
		}
	}
	return "", false
}

// userHome is the home directory of a hook's user: /root for root, and
// the agent user's /home/agent for uid 1000, agent or no user (the
// platform floor's user, SPEC-v3 §3.5); "" for any other user.
func userHome(user string) string {
	switch user {
	case "0", "root", "0:0":
		return "/root"
	case "", "1000", "agent", "1000:1000":
		return "/home/agent"
	}
	return ""
}

// homeTilde resolves a leading ~/ for the hook's user.
func homeTilde(p, user string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home := userHome(user); home != "" {
			return home + "/" + rest
		}
	}
	return p
}

// homePath resolves a word that is $HOME or ${HOME} followed by literal
// text ("$HOME/.local/bin/setup.sh", quoted or not) for the hook's user.
func homePath(w *syntax.Word, user string) (string, bool) {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) < 2 {
		return "", false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Param.Value != "HOME" || pe.Exp != nil || pe.Length || pe.Index != nil {
		return "", false
	}
	var rest strings.Builder
	for _, p := range parts[1:] {
		switch p := p.(type) {
		case *syntax.Lit:
			rest.WriteString(p.Value)
		case *syntax.SglQuoted:
			rest.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				rest.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	home := userHome(user)
	if home == "" || !strings.HasPrefix(rest.String(), "/") {
		return "", false
	}
	return home + rest.String(), true
}

// lifecycleFile returns the lifecycle file at target, a path a hook runs,
// or nil.
func (in *Input) lifecycleFile(target string) *LifecycleFile {
	for _, f := range in.Files {
		p := in.withDefaults(f.Path)
		if p == target || !strings.Contains(target, "/") && base(p) == target || strings.HasSuffix(target, "/"+base(p)) && base(p) != "" {
			return f
		}
	}
	return nil
}

// HasLongRunning reports whether the kit declares long-running@1.
func (in *Input) HasLongRunning() bool { return in.hasLongRunning }

// contentPos maps a line and column of a lifecycle file's content to the
// descriptor.
func (in *Input) contentPos(f *LifecycleFile) func(line, col int) spec.Pos {
	return in.Kit.ValuePos(f.Field + ".content")
}

func (in *Input) newHook(phase string, i int, field string, h spec.Hook) *Hook {
	hk := &Hook{Phase: phase, Index: i, Field: field, Hook: h}
	if h.Command.IsShell {
		hk.Script = parseScript(h.Command.Shell, in.Kit.ValuePos(field+".command"))
		return hk
	}
	argv := h.Command.Argv
	if j := shellScriptArg(argv); j > 0 {
		hk.Script = parseScript(argv[j], in.Kit.ValuePos(fmt.Sprintf("%s.command[%d]", field, j)))
		return hk
	}
	hk.Argv = argv
	return hk
}

// shellScriptArg returns the index of the script in an argv such as
// ["bash", "-c", script] or ["/bin/sh", "-ec", script], or -1.
func shellScriptArg(argv []string) int {
	if len(argv) < 3 {
		return -1
	}
	if !isShell(base(argv[0])) {
		return -1
	}
	for j := 1; j < len(argv)-1; j++ {
		a := argv[j]
		if !strings.HasPrefix(a, "-") {
			return -1
		}
		if strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			return j + 1
		}
	}
	return -1
}

// shellRCFiles are the rc files that shells source.
var shellRCFiles = map[string]bool{".bashrc": true, "bashrc": true, "bash.bashrc": true, ".zshrc": true, "zshrc": true,
	".zshenv": true, "zshenv": true, ".kshrc": true, ".mkshrc": true, ".shrc": true, ".bash_login": true, ".zlogin": true,
	".zprofile": true, ".bash_profile": true, ".profile": true, "profile": true, "environment": true, ".env": true}

// shellLikeFile reports a file written in shell syntax: shell rc and
// profile files, scripts, env files.
func shellLikeFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case shellRCFiles[base], strings.HasSuffix(base, ".sh"), strings.HasSuffix(base, ".bash"), strings.HasSuffix(base, ".zsh"),
		strings.HasSuffix(base, ".env"):
		return true
	}
	return strings.Contains(p, "/profile.d/") || strings.Contains(p, "/env.d/")
}

// Script is a parsed shell script with a mapping back to the descriptor.
type Script struct {
	// File is the parsed script.
	File *syntax.File
	// Source is the script as written, ${{ … }} placeholders included.
	Source string
	pos    func(line, col int) spec.Pos

	// Computed once: the results of Commands, Reads and Assignments.
	commands    []Command
	reads       []VarRef
	assignments []Assignment
	computed    uint8
}

const (
	computedCommands = 1 << iota
	computedReads
	computedAssignments
)

// Pos maps a position inside the script to the file it was written in.
func (s *Script) Pos(p syntax.Pos) spec.Pos { return s.pos(int(p.Line()), int(p.Col())) }

// Range maps the script extent [start, end) to the file; the end is kept
// only when it is on the start's line.
func (s *Script) Range(start, end syntax.Pos) spec.Range {
	r := spec.Range{Start: s.Pos(start)}
	if end.IsValid() && end.Line() == start.Line() && end.Col() > start.Col() {
		r.End = s.Pos(end)
	}
	return r
}

// parseScript parses src as a bash script. ${{ … }} placeholders are
// replaced by same-length words first, so columns stay right.
func parseScript(src string, pos func(line, col int) spec.Pos) *Script {
	clean := maskPlaceholders(src)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(clean), "")
	if err != nil {
		return nil
	}
	return &Script{File: f, Source: src, pos: pos}
}

// maskPlaceholders replaces each ${{ … }} with underscores of the same
// length: a plain word to the shell parser.
func maskPlaceholders(s string) string {
	if !strings.Contains(s, "${{") {
		return s
	}
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] != '$' || b[i+1] != '{' || b[i+2] != '{' {
			continue
		}
		end := bytes.Index(b[i:], []byte("}}"))
		if end < 0 || bytes.IndexByte(b[i:i+end], '\n') >= 0 {
			continue
		}
		for j := i; j < i+end+2; j++ {
			b[j] = '_'
		}
		i += end + 1
	}
	return string(b)
}

// parseRecipe parses the kit's content recipe with BuildKit's parser.
func (in *Input) parseRecipe() *Dockerfile {
	k := in.Kit
	r := k.Recipe
	if r == nil {
		return nil
	}
	text := r.Text
	pos := r.Pos
	if k.Form == spec.FormComment {
		// Parse the file itself: its first directive is only a comment to
		// the parser, and its line numbers are the file's.
		if src, ok := in.sources[k.Path]; ok {
			text = src
			pos = func(line, col int) spec.Pos { return spec.Pos{File: k.Path, Line: line, Col: col} }
		}
	}
	res, err := parser.Parse(bytes.NewReader(text))
	if err != nil {
		return nil
	}
	return &Dockerfile{AST: res.AST, lines: strings.Split(string(text), "\n"), pos: pos}
}
