package migrate

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// hookRef ties a generated hook node to its v2 origin.
type hookRef struct {
	out, v2 *yaml.Node
	field   string
}

// declareHookEnv gives each hook an env: list of the variables its script
// reads, ${NAME:-default} forms included (v2 hooks saw the whole
// environment; v3 hooks see only what they declare), parsing the hooks as
// lint does. It reports whether it changed
// anything. Variables the hook's programs read without the script naming
// them (a proxy for curl) are not guessed: lint reports those.
func (m *migrator) declareHookEnv(descriptor []byte) bool {
	if len(m.hookRefs["install"])+len(m.hookRefs["startup"]) == 0 {
		return false
	}
	k, err := spec.Parse(m.stem+".yaml", descriptor)
	if err != nil || k.Descriptor == nil {
		return false
	}
	changed := false
	baseline := lint.HookBaselineEnv()
	for _, h := range lint.NewInput(k).Hooks {
		refs := m.hookRefs[h.Phase]
		if h.Script == nil || h.Index >= len(refs) || len(h.Env) > 0 {
			continue
		}
		var names []string
		for _, r := range h.Script.Reads() {
			if !slices.Contains(baseline, r.Name) && !slices.Contains(names, r.Name) {
				names = append(names, r.Name)
			}
		}
		if len(names) == 0 {
			continue
		}
		ref := refs[h.Index]
		list := seqNode()
		list.Style = yaml.FlowStyle
		for _, n := range names {
			list.Content = append(list.Content, scalar(n))
		}
		add(ref.out, "env", list)
		changed = true
		m.note(ref.v2, ref.field, "hook-env",
			"declared env: ["+strings.Join(names, ", ")+"], the variables the hook reads: v2 hooks saw the whole environment, v3 hooks only what they declare")
	}
	return changed
}
