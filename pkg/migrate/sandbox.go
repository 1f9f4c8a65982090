package migrate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// maxInlineFile is the largest files/workspace file made a lifecycle file.
const maxInlineFile = 64 << 10

var cmdLine = regexp.MustCompile(`(?i)^\s*CMD\s`)

// sandbox maps the v2 sandbox block: image, entrypoint and command.default
// to the recipe, resources to resources@1. It returns command.interactive
// for lifecycle@1.
func (m *migrator) sandbox(p pair, order int) (interactive pair) {
	b := m.mapping(p.val, "sandbox", "image", "build", "entrypoint", "command", "resources")
	if b == nil {
		return pair{}
	}
	m.cur = nil
	if !m.workload {
		m.action(p.key, "sandbox", "sandbox-on-mixin", "v2 forbids sandbox: on a mixin; not carried over")
		return pair{}
	}
	m.recipe.needed = true
	dockerfile := "Dockerfile"
	var dfKey *yaml.Node
	if bp, ok := b.get("build"); ok {
		dockerfile, dfKey = m.build(bp)
	}
	m.loadDockerfile(dockerfile, dfKey)
	if ip, ok := b.get("image"); ok {
		if img, ok := m.str(ip.val, "sandbox.image"); ok {
			switch {
			case m.recipe.base != nil:
				m.note(ip.val, "sandbox.image", "image-from-dockerfile",
					fmt.Sprintf("the recipe is the v2 %s, which built %s; v3 builds it with the kit, so the image is no longer referenced", m.recipe.baseName, img))
			case strings.Contains(img, "${{"):
				m.recipe.from = img
				m.action(ip.val, "sandbox.image", "image-arg",
					"a recipe FROM cannot hold a kit arg reference: give the arg buildArg: NAME, declare ARG NAME in the recipe and write FROM ${NAME}")
			default:
				m.recipe.from = img
			}
		}
	} else if m.recipe.base == nil {
		m.action(p.key, "sandbox.image", "no-image", "the v2 sandbox has no image: write the recipe's FROM by hand")
	}
	if ep, ok := b.get("entrypoint"); ok {
		if argv, ok := m.strs(ep.val, "sandbox.entrypoint"); ok {
			m.recipe.entry, m.recipe.hasEntry = argv, true
		}
	}
	if cp, ok := b.get("command"); ok {
		interactive = m.command(cp)
	}
	m.dockerfileCMD()
	m.carryContext()
	if rp, ok := b.get("resources"); ok {
		m.resources(rp, order)
	}
	return interactive
}

// build reads sandbox.build and returns the Dockerfile it names.
func (m *migrator) build(bp pair) (string, *yaml.Node) {
	b := m.mapping(bp.val, "sandbox.build", "context", "dockerfile", "args", "target", "platforms")
	if b == nil {
		return "Dockerfile", nil
	}
	ctxDir, name := ".", "Dockerfile"
	var key *yaml.Node
	if c, ok := b.get("context"); ok {
		if s, ok := m.str(c.val, "sandbox.build.context"); ok {
			ctxDir = s
			if path.Clean(s) != "." {
				m.action(c.key, "sandbox.build.context", "build-context",
					"the v3 build context is the kit directory: move the context's files next to the descriptor and fix the recipe's COPY sources")
			}
		}
	}
	if d, ok := b.get("dockerfile"); ok {
		if s, ok := m.str(d.val, "sandbox.build.dockerfile"); ok {
			name, key = s, d.val
		}
	}
	if a, ok := b.get("args"); ok {
		m.action(a.key, "sandbox.build.args", "build-args",
			"v3 passes build args from kit args: declare an arg with buildArg: NAME and a default for each, and ARG NAME in the recipe")
	}
	if t, ok := b.get("target"); ok {
		m.action(t.key, "sandbox.build.target", "build-target", "v3 builds the recipe's last stage: move the target stage last")
	}
	if pl, ok := b.get("platforms"); ok {
		m.note(pl.key, "sandbox.build.platforms", "build-platforms", "v3 platforms are chosen at build time (kitsmith build --platform); dropped")
	}
	return path.Join(ctxDir, name), key
}

// loadDockerfile reads the v2 Dockerfile, when there is one, as the base
// of the recipe.
func (m *migrator) loadDockerfile(name string, key *yaml.Node) {
	clean := path.Clean(name)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		m.action(key, "sandbox.build.dockerfile", "build-dockerfile", "names a file outside the kit; the v3 recipe must be inside it")
		return
	}
	text, err := m.kfs.readOptional(clean)
	switch {
	case err != nil:
		m.fail(err)
		return
	case text == nil:
		if key != nil {
			m.action(key, "sandbox.build.dockerfile", "build-dockerfile", "names a file the kit does not have")
		}
		return
	}
	if bytes.Contains(firstLine(text), []byte("sandbox-kit")) || bytes.Contains(firstLine(text), []byte("sbx-kit")) {
		m.action(key, "sandbox.build.dockerfile", "build-dockerfile", "its # syntax= line names a kit frontend, which a recipe must not")
	}
	m.recipe.base, m.recipe.baseName = text, clean
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// dockerfileCMD reports a CMD of the v2 Dockerfile that would become a
// trailing argument of the migrated ENTRYPOINT.
func (m *migrator) dockerfileCMD() {
	if m.recipe.base == nil || !m.recipe.hasEntry || m.recipe.hasCmd {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(m.recipe.base))
	for line := 1; sc.Scan(); line++ {
		if !cmdLine.MatchString(sc.Text()) {
			continue
		}
		file := path.Join(m.display, m.recipe.baseName)
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: file, Line: line, Col: 1}, Code: "dockerfile-cmd", Action: true,
			Message: "this CMD now follows the migrated ENTRYPOINT and becomes a trailing argument of every launch: " +
				"remove it unless it carries default arguments to the entrypoint"})
		m.recipe.comments = append(m.recipe.comments, fmt.Sprintf("%s dockerfile-cmd (%s:%d): the CMD above now trails the ENTRYPOINT below; remove it unless it holds default arguments",
			CommentMarker, m.recipe.baseName, line))
	}
}

// command maps sandbox.command: the list shorthand or default to CMD;
// interactive is returned for lifecycle@1.
func (m *migrator) command(cp pair) pair {
	if cp.val.Kind == yaml.SequenceNode {
		if argv, ok := m.strs(cp.val, "sandbox.command"); ok {
			m.recipe.cmd, m.recipe.hasCmd = argv, true
		}
		return pair{}
	}
	b := m.mapping(cp.val, "sandbox.command", "default", "interactive")
	if b == nil {
		return pair{}
	}
	if d, ok := b.get("default"); ok {
		if argv, ok := m.strs(d.val, "sandbox.command.default"); ok && len(argv) > 0 {
			m.recipe.cmd, m.recipe.hasCmd = argv, true
		}
	}
	ip, ok := b.get("interactive")
	if !ok {
		return pair{}
	}
	argv, ok := m.strs(ip.val, "sandbox.command.interactive")
	switch {
	case !ok:
		return pair{}
	case len(argv) == 0 && !m.recipe.hasCmd:
		return pair{} // an empty tail after an empty default says nothing
	case len(argv) == 0:
		m.note(ip.key, "sandbox.command.interactive", "interactive-empty",
			"kept as interactive: [] so a TTY session does not run the CMD default arguments, as in v2")
	}
	return ip
}

// resources maps sandbox.resources to resources@1.
func (m *migrator) resources(rp pair, order int) {
	b := m.mapping(rp.val, "sandbox.resources", "cpu", "memory", "gpu")
	if b == nil || len(b.order) == 0 {
		return
	}
	item := m.entry(order, spec.TypeResources, rp.key)
	add(item, "config", keep(b))
	m.cur = nil
}

// environment maps environment.variables to recipe ENV lines, except
// proxy variables, which a kit must not set, and whole arg references,
// which become the arg's env: export.
func (m *migrator) environment(p pair) {
	m.cur = nil
	b := m.mapping(p.val, "environment", "variables")
	if b == nil {
		return
	}
	vp, ok := b.get("variables")
	if !ok {
		return
	}
	vars := m.mapping(vp.val, "environment.variables", keysOf(vp.val)...)
	if vars == nil {
		return
	}
	for _, e := range vars.order {
		name := e.key.Value
		f := join("environment.variables", name)
		value, ok := m.str(e.val, f)
		if !ok {
			continue
		}
		if isProxyVar(name) {
			m.action(e.key, f, "proxy-env",
				"not carried over: a kit that sets proxy variables bypasses the sandbox proxy, so its network policy and credential injection; "+
					"to reach a service on the host, allow host.docker.internal:<port> in the network policy instead")
			continue
		}
		if arg, ok := spec.WholeArgRef(value); ok && m.exportArg(arg, name) {
			m.note(e.key, f, "env-arg-export", "became env: "+name+" on the arg "+arg+", which exports its value at create")
			continue
		}
		if strings.Contains(value, "${{") {
			m.action(e.key, f, "env-arg-ref",
				"a recipe ENV cannot hold a kit arg reference: give the arg buildArg: NAME and write ARG NAME / ENV "+name+"=${NAME} in the recipe, or export it with env:")
			continue
		}
		if strings.ContainsAny(value, "\n\r") {
			m.action(e.key, f, "env-multiline", "a multi-line value cannot be a recipe ENV: write it by hand")
			continue
		}
		m.recipe.needed = true
		m.recipe.env = append(m.recipe.env, envVar{name: name, value: value, comments: commentLines(e.key.HeadComment)})
	}
}

func keysOf(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var ks []string
	for i := 0; i < len(n.Content); i += 2 {
		ks = append(ks, n.Content[i].Value)
	}
	return ks
}

func commentLines(c string) []string {
	if c == "" {
		return nil
	}
	return strings.Split(c, "\n")
}

// exportArg gives the arg name env: variable, when it exists and exports
// nothing yet.
func (m *migrator) exportArg(name, variable string) bool {
	a := lookup(m.args, name)
	// name came from spec.WholeArgRef, so it follows the v3 arg grammar.
	if a == nil || a.Kind != yaml.MappingNode || lookup(a, "env") != nil {
		return false
	}
	add(a, "env", scalar(variable))
	return true
}

// filesTree maps the v2 files/ tree: files/home to a COPY into
// /home/agent (the files are carried along, see carry), files/workspace
// to lifecycle files in the workspace.
func (m *migrator) filesTree() {
	real, _, err := m.kfs.resolve("files")
	if err != nil {
		m.fail(err)
		return
	}
	entries, err := fs.ReadDir(m.kfs.fsys, path.Join(m.kfs.dir, real))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			m.fail(fmt.Errorf("reading %s: %w", m.kfs.displayPath("files"), err))
		}
		return
	}
	m.cur = nil
	for _, e := range entries {
		rel := path.Join("files", e.Name())
		switch e.Name() {
		case "home":
			m.homeTree()
		case "workspace":
			if err := m.kfs.walk(rel, m.workspaceFile); err != nil {
				m.fail(err)
			}
		default:
			m.notes = append(m.notes, Note{Pos: spec.Pos{File: m.kfs.displayPath(rel)}, Code: "files-ignored",
				Message: "v2 ignored files outside files/home and files/workspace; not carried over"})
		}
	}
}

func (m *migrator) homeTree() {
	m.recipe.copyHome = true
	m.carried = append(m.carried, "files/home")
	if !m.workload {
		m.recipe.mixin = true
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: m.kfs.displayPath("files/home")}, Code: "files-home-overlay",
			Message: "files/home became part of the mixin's overlay, under a root-owned /home and a /home/agent owned by uid 1000"})
	}
}

func (m *migrator) workspaceFile(e kitEntry) error {
	rel := strings.TrimPrefix(e.name, "files/workspace/")
	display := m.kfs.displayPath(e.name)
	switch {
	case e.link != "":
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "files-workspace-link", Action: true,
			Message: "a symbolic link (to " + e.link + ") cannot be a lifecycle file: create it from a startup hook (ln -s)"})
		return nil
	case !utf8.Valid(e.data) || len(e.data) > maxInlineFile:
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "files-workspace", Action: true,
			Message: "a workspace file that is not small UTF-8 text cannot be a lifecycle file: write it from a startup hook"})
		return nil
	}
	item := mapNode()
	add(item, "path", scalar(workspaceRef+"/"+rel))
	content := scalar(string(e.data))
	if strings.Contains(string(e.data), "\n") {
		content.Style = yaml.LiteralStyle
	}
	add(item, "content", content)
	if e.mode&0o111 != 0 {
		add(item, "mode", quoted("0755"))
	}
	comment(item, "from "+e.name)
	m.workspaceFiles = append(m.workspaceFiles, item)
	return nil
}

// carryContext adds to Carried the files the v2 Dockerfile's COPY and ADD
// instructions read from the kit directory (the build context), so an
// output written elsewhere still builds, and makes each source outside
// the kit an action: the v3 build context is the kit directory, and a
// build never leaves it (BuildKit reads ../x and /etc/x inside it).
func (m *migrator) carryContext() {
	if m.recipe.base == nil {
		return
	}
	parsed, err := parser.Parse(bytes.NewReader(m.recipe.base))
	if err != nil {
		return // validation and lint of the result report the recipe's syntax
	}
	for _, n := range parsed.AST.Children {
		kw := strings.ToLower(n.Value)
		if kw != "copy" && kw != "add" || len(n.Heredocs) > 0 || slices.ContainsFunc(n.Flags, func(f string) bool { return strings.HasPrefix(f, "--from") }) {
			continue
		}
		var args []string
		for a := n.Next; a != nil; a = a.Next {
			args = append(args, a.Value)
		}
		if len(args) < 2 {
			continue
		}
		for _, src := range args[:len(args)-1] {
			clean := path.Clean(src)
			switch {
			case strings.Contains(src, "://") || kw == "add" && strings.HasPrefix(src, "git@") || strings.Contains(src, "$"):
			case path.IsAbs(src) || clean == ".." || strings.HasPrefix(clean, "../"):
				m.outsideSource(strings.ToUpper(kw), src, n.StartLine)
			case clean == ".":
			default:
				if _, err := m.kfs.lstat(clean); err == nil && !slices.Contains(m.carried, clean) {
					m.carried = append(m.carried, clean)
				}
			}
		}
	}
}

// outsideSource reports a COPY or ADD source outside the kit.
func (m *migrator) outsideSource(kw, src string, line int) {
	msg := fmt.Sprintf("%s %s names a file outside the kit; the v3 build context is the kit directory and a build never leaves it "+
		"(it reads the path inside the kit instead): move the file into the kit and fix the source", kw, src)
	m.notes = append(m.notes, Note{Pos: spec.Pos{File: m.kfs.displayPath(m.recipe.baseName), Line: line, Col: 1},
		Code: "recipe-source-outside", Action: true, Message: msg})
	m.recipe.comments = append(m.recipe.comments, fmt.Sprintf("%s recipe-source-outside (%s:%d): %s", CommentMarker, m.recipe.baseName, line, msg))
}
