package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// migrator holds the state of one migration.
type migrator struct {
	kfs     *kitFS // reads the v2 kit
	display string // the kit directory as reported
	srcName string // display path of spec.yaml
	// err is the first failure to read the kit; the migration then fails.
	err error

	stem     string
	workload bool
	// hasInstall reports v2 install hooks: network entries then go into
	// the install phase too.
	hasInstall bool

	notes []Note
	// cur is the output node a "# kitsmith:migrate" comment goes on;
	// nil means the top of the descriptor.
	cur *yaml.Node
	top []string // comments for the top of the descriptor

	args    *yaml.Node // the args mapping being emitted, or nil
	caps    []capItem
	recipe  recipe
	context []byte // the agent-context body, or nil
	carried []string
	// carriedFiles are the files under carried, read after the mapping.
	carriedFiles []File
	// hookRefs are the generated install and startup hooks, by phase.
	hookRefs map[string][]hookRef
	// allow are the generated network allow lists, by phase.
	allow map[string]*yaml.Node
	// creds are the generated credentials.
	creds []credRef
	// workspaceFiles are lifecycle files made from files/workspace.
	workspaceFiles []*yaml.Node
	out            []File
}

// capItem is one generated capability entry and the v2 position it
// comes from, for ordering.
type capItem struct {
	order int
	node  *yaml.Node
}

func newMigrator(kfs *kitFS) *migrator {
	return &migrator{kfs: kfs, display: kfs.display, srcName: path.Join(kfs.display, SpecFile), hookRefs: map[string][]hookRef{}, allow: map[string]*yaml.Node{}}
}

// fail records the first failure to read the kit.
func (m *migrator) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// action records a note a person must act on, and marks the output.
func (m *migrator) action(n *yaml.Node, field, code, msg string) {
	note := Note{Pos: m.pos(n), Field: field, Code: code, Message: msg, Action: true}
	m.notes = append(m.notes, note)
	text := fmt.Sprintf("%s %s", CommentMarker, code)
	if note.Pos.IsValid() {
		text += fmt.Sprintf(" (%s:%d:%d)", SpecFile, note.Pos.Line, note.Pos.Col)
	}
	if field != "" {
		text += " " + field
	}
	text += ": " + msg
	if m.cur != nil {
		comment(m.cur, text)
	} else {
		m.top = append(m.top, text)
	}
}

// note records a suggestion or a mechanical change worth knowing.
func (m *migrator) note(n *yaml.Node, field, code, msg string) {
	m.notes = append(m.notes, Note{Pos: m.pos(n), Field: field, Code: code, Message: msg})
}

// run migrates the v2 descriptor src.
func (m *migrator) run(src []byte) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%w: %v", ErrNotV2, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%w: %s is not a YAML mapping", ErrNotV2, SpecFile)
	}
	root := doc.Content[0]
	switch v := lookup(root, "schemaVersion"); {
	case v != nil && v.Value == "1":
		return ErrV1
	case v == nil || v.Value != "2":
		return fmt.Errorf("%w: schemaVersion must be \"2\"", ErrNotV2)
	}
	m.extraDocument(dec, src)
	out := m.descriptor(root)
	if m.carry(); m.err != nil {
		return m.err
	}
	head := doc.HeadComment
	if root.HeadComment != "" {
		head = joinComments(head, root.HeadComment)
	}
	outDoc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: head, FootComment: doc.FootComment, Content: []*yaml.Node{out}}
	if err := inlineAliases(outDoc); err != nil {
		return err
	}
	data, err := m.encode(outDoc)
	if err != nil {
		return err
	}
	if env := m.declareHookEnv(data); m.credentialPhases() || env {
		if data, err = m.encode(outDoc); err != nil {
			return err
		}
	}
	m.out = append(m.out, File{Name: m.stem + ".yaml", Data: data})
	if text := m.recipe.text(); text != nil {
		m.out = append(m.out, File{Name: m.stem + ".dockerfile", Data: text})
	}
	if m.context != nil {
		m.out = append(m.out, File{Name: m.contextName(), Data: m.context})
	}
	return nil
}

// encode renders the descriptor document behind the syntax line and the
// top migrate comments.
func (m *migrator) encode(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(spec.SyntaxLine + "\n")
	for _, t := range m.top {
		buf.WriteString("# " + t + "\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the v3 descriptor: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding the v3 descriptor: %w", err)
	}
	return buf.Bytes(), nil
}

func (m *migrator) contextName() string { return m.stem + "-context.md" }

func (m *migrator) result() *Result {
	sortNotes(m.notes)
	return &Result{Stem: m.stem, Files: m.out, Carried: m.carried, CarriedFiles: m.carriedFiles, Notes: m.notes}
}

// lookup returns the value of key in the mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// extraDocument reports a second YAML document in spec.yaml: v2 read only
// the first.
func (m *migrator) extraDocument(dec *yaml.Decoder, src []byte) {
	var next yaml.Node
	err := dec.Decode(&next)
	if errors.Is(err, io.EOF) {
		return
	}
	line := next.Line
	if err != nil || line == 0 {
		line = bytes.Count(src[:secondDocStart(src)], []byte("\n")) + 1
	}
	m.notes = append(m.notes, Note{Pos: spec.Pos{File: m.srcName, Line: line, Col: 1}, Code: "v2-extra-document", Action: true,
		Message: SpecFile + " holds a second YAML document; v2 read only the first, so it was not carried over: merge what it means into the first"})
	m.top = append(m.top, fmt.Sprintf("%s v2-extra-document (%s:%d): a second YAML document was not carried over", CommentMarker, SpecFile, line))
}

// secondDocStart returns the offset of the second document's "---" line,
// or 0.
func secondDocStart(src []byte) int {
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		end := len(src)
		if j >= 0 {
			end = i + j
		}
		if i > 0 && bytes.HasPrefix(src[i:end], []byte("---")) {
			return i
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return 0
}
