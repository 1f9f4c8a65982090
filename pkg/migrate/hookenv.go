package migrate

import (
	"slices"
	"strings"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// hookRef ties a generated hook node to its v2 origin.
type hookRef struct {
	out, v2 *yaml.Node
	field   string
	// declared is the env list given to the hook, once it has one.
	declared []string
}

// proxyVars are the variables a hook that runs a network client reads to
// reach the sandbox proxy.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY"}

// declareHookEnv gives each hook an env: list of the variables its script
// reads, ${NAME:-default} forms included (v2 hooks saw the whole
// environment; v3 hooks see only what they declare), parsing the hooks as
// lint does; a hook that runs a network client (lint's detection, a
// script the hook runs included) also declares HTTP_PROXY and HTTPS_PROXY,
// which the sandbox announces its proxy in and which v2 hooks saw too.
// Declaring a variable sets nothing and grants nothing. It reports
// whether it changed anything.
func (m *migrator) declareHookEnv(descriptor []byte) bool {
	if len(m.hookRefs["install"])+len(m.hookRefs["startup"]) == 0 {
		return false
	}
	in := m.hookInput(descriptor)
	if in == nil {
		return false
	}
	baseline := lint.HookBaselineEnv()
	type key struct {
		phase string
		index int
	}
	reads := map[key][]string{}
	client := map[key]string{}
	var order []key
	for _, h := range in.Hooks {
		refs := m.hookRefs[h.Phase]
		if h.Index >= len(refs) || len(refs[h.Index].declared) > 0 {
			continue
		}
		kk := key{h.Phase, h.Index}
		if _, ok := reads[kk]; !ok {
			order = append(order, kk)
			reads[kk] = []string{}
		}
		names := reads[kk]
		if h.Script != nil && h.Via == "" {
			for _, r := range h.Script.Reads() {
				if !slices.Contains(baseline, r.Name) && !slices.Contains(names, r.Name) {
					names = append(names, r.Name)
				}
			}
		}
		if name, ok := h.NetworkClient(); ok {
			if client[kk] == "" {
				client[kk] = name
			}
			for _, p := range proxyVars {
				if !slices.Contains(names, p) {
					names = append(names, p)
				}
			}
		}
		reads[kk] = names
	}
	changed := false
	for _, kk := range order {
		names := reads[kk]
		if len(names) == 0 {
			continue
		}
		ref := &m.hookRefs[kk.phase][kk.index]
		list := seqNode()
		list.Style = yaml.FlowStyle
		for _, n := range names {
			list.Content = append(list.Content, scalar(n))
		}
		add(ref.out, "env", list)
		ref.declared = names
		changed = true
		why := "the variables the hook reads"
		if c := client[kk]; c != "" {
			why = "the variables the hook reads, and the proxy ones since it runs " + c + " (the sandbox announces its proxy in them)"
		}
		m.note(ref.v2, ref.field, "hook-env",
			"declared env: ["+strings.Join(names, ", ")+"], "+why+": v2 hooks saw the whole environment, v3 hooks only what they declare")
	}
	return changed
}

// hookInput parses the hooks of the generated kit as lint does, with the
// recipe and the files it copies beside the descriptor, so a hook that
// runs a staged script is judged on that script; nil when the descriptor
// does not load.
func (m *migrator) hookInput(descriptor []byte) *lint.Input {
	mem := fstest.MapFS{}
	for _, f := range m.carriedFiles {
		if f.Link == "" {
			mem[f.Name] = &fstest.MapFile{Data: f.Data, Mode: f.Mode}
		}
	}
	if text := m.recipe.text(); text != nil {
		mem[m.stem+".dockerfile"] = &fstest.MapFile{Data: text}
	}
	mem[m.stem+".yaml"] = &fstest.MapFile{Data: descriptor}
	k, err := spec.Load(mem, m.stem+".yaml")
	if err != nil || k.Descriptor == nil {
		return nil
	}
	return lint.NewInput(k)
}
