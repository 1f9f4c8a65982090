package migrate

import (
	"path"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// tckFile is where a v2 kit recorded how its agent runs one prompt
// non-interactively (promptArgs), the only evidence the migrate skill
// accepts for agent-sessions@1.
const tckFile = "testdata/tck.yaml"

// sessions maps the promptArgs of testdata/tck.yaml to agent-sessions@1
// on a workload: promptArgs: ["-p"] becomes prompt: ["-p", "{{.Prompt}}"].
// Nothing else is invented: no resume, continue or list verb.
func (m *migrator) sessions(order int) {
	if !m.workload {
		return
	}
	src, err := m.kfs.readOptional(tckFile)
	if err != nil {
		m.fail(err)
		return
	}
	if src == nil {
		return
	}
	display := path.Join(m.display, tckFile)
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) == 0 {
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: display}, Code: "tck-unreadable",
			Message: "is not YAML, so no agent-sessions@1 was derived from it"})
		return
	}
	p := lookup(doc.Content[0], "promptArgs")
	if p == nil {
		return
	}
	pos := spec.Pos{File: display, Line: p.Line, Col: p.Column}
	args, ok := stringList(p)
	if !ok {
		m.notes = append(m.notes, Note{Pos: pos, Code: "tck-prompt-args", Action: true,
			Message: "promptArgs is not a list of strings: write agent-sessions@1 by hand"})
		return
	}
	prompt := seqNode()
	prompt.Style = yaml.FlowStyle
	for _, a := range args {
		prompt.Content = append(prompt.Content, quoted(a))
	}
	prompt.Content = append(prompt.Content, quoted("{{.Prompt}}"))
	item := m.entry(order, spec.TypeAgentSessions, nil)
	comment(item, "from promptArgs in "+tckFile+", the recorded non-interactive invocation")
	add(item, "config", mapNode(scalar("prompt"), prompt))
	m.cur = nil
	m.notes = append(m.notes, Note{Pos: pos, Code: "agent-sessions",
		Message: "became agent-sessions@1 prompt; add resume, continue or list only for verbs verified against the agent's CLI"})
}

func stringList(n *yaml.Node) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, c.Value)
	}
	return out, true
}
