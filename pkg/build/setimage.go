package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// assembleSetImage assembles platform i of a merged set: the workload's
// layers first (its root filesystem is the base), then the mixins' in
// dependency order, then the set's staged layer; the image configs folded
// together.
func assembleSetImage(ordered []*member, i int, staged v1.Layer, kind string, opts *options, ann map[string]string) (v1.Image, error) {
	var stack []*member
	for _, m := range ordered {
		if m.desc.Kind == spec.KindWorkload {
			stack = append(stack, m)
		}
	}
	for _, m := range ordered {
		if m.desc.Kind != spec.KindWorkload {
			stack = append(stack, m)
		}
	}
	var layers []v1.Layer
	configs := make([]v1.Config, 0, len(stack))
	for _, m := range stack {
		ls, err := m.images[i].Layers()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.ref, err)
		}
		layers = append(layers, ls...)
		cf, err := m.images[i].ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("%s: reading its image config: %w", m.ref, err)
		}
		configs = append(configs, cf.Config)
	}
	layers = append(layers, staged)
	cfg, err := mergeConfigs(stack, configs, kind)
	if err != nil {
		return nil, err
	}
	pl := opts.platforms[i]
	cf := &v1.ConfigFile{Architecture: pl.Architecture, OS: pl.OS, Variant: pl.Variant, OSVersion: pl.OSVersion, Config: cfg,
		Created: v1.Time{Time: opts.epochTime()}}
	return ociImage(layers, cf, ann)
}

// mergeConfigs folds the members' image configs (in stack order, the
// workload first) into the merged kit's: a workload anchors ENTRYPOINT,
// CMD, USER, WORKDIR and STOPSIGNAL; the mixins add ENV (PATH elements
// appended), LABELs, EXPOSE and VOLUME entries; variables the members'
// args export are set last. Without a workload, the runtime fields are
// kept only when exactly one member states them.
func mergeConfigs(stack []*member, configs []v1.Config, kind string) (v1.Config, error) {
	var out v1.Config
	env := envFold{values: map[string]string{}, owner: map[string]string{}}
	start := 0
	if kind == spec.KindWorkload {
		c := configs[0]
		out = v1.Config{Entrypoint: c.Entrypoint, Cmd: c.Cmd, User: c.User, WorkingDir: c.WorkingDir, StopSignal: c.StopSignal,
			Labels: maps.Clone(c.Labels), ExposedPorts: maps.Clone(c.ExposedPorts), Volumes: maps.Clone(c.Volumes)}
		if err := env.add(c.Env, stack[0].ref, false); err != nil {
			return out, err
		}
		start = 1
	}
	var contracts []v1.Config
	for j := start; j < len(configs); j++ {
		c := configs[j]
		if err := env.add(c.Env, stack[j].ref, true); err != nil {
			return out, err
		}
		out.Labels = union(out.Labels, c.Labels)
		out.ExposedPorts = union(out.ExposedPorts, c.ExposedPorts)
		out.Volumes = union(out.Volumes, c.Volumes)
		if len(c.Entrypoint) > 0 || len(c.Cmd) > 0 || c.User != "" || c.WorkingDir != "" {
			contracts = append(contracts, c)
		}
	}
	if kind != spec.KindWorkload && len(contracts) == 1 {
		c := contracts[0]
		out.Entrypoint, out.Cmd, out.User, out.WorkingDir = c.Entrypoint, c.Cmd, c.User, c.WorkingDir
	}
	if err := env.export(stack); err != nil {
		return out, err
	}
	out.Env = env.list()
	return out, nil
}

// union adds the entries of b to a (later ones win).
func union[V any](a, b map[string]V) map[string]V {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]V{}
	}
	maps.Copy(a, b)
	return a
}

// envFold accumulates the merged environment, in first-set order.
type envFold struct {
	values map[string]string
	owner  map[string]string
	order  []string
}

// add sets a member's variables; with overlay, PATH holds elements to
// append. Another value for a variable already set is an error.
func (e *envFold) add(env []string, who string, overlay bool) error {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		old, had := e.values[k]
		switch {
		case k == "PATH" && overlay:
			v = joinPath(old, v)
		case had && old != v:
			return fmt.Errorf("%s and %s set %s to different values (%q, %q); a merged kit has one value", e.owner[k], who, k, old, v)
		}
		if !had {
			e.order = append(e.order, k)
			e.owner[k] = who
		}
		e.values[k] = v
	}
	return nil
}

// export sets the variables the members' args export (arg env:), over
// what the images say.
func (e *envFold) export(stack []*member) error {
	exported, exporter := map[string]string{}, map[string]string{}
	for _, m := range stack {
		for _, k := range slices.Sorted(maps.Keys(m.env)) {
			if old, had := exported[k]; had && old != m.env[k] {
				return fmt.Errorf("%s and %s export %s as %q and %q; give them the same value", exporter[k], m.ref, k, old, m.env[k])
			}
			exported[k], exporter[k] = m.env[k], m.ref
		}
	}
	for _, k := range slices.Sorted(maps.Keys(exported)) {
		if _, had := e.values[k]; !had {
			e.order = append(e.order, k)
		}
		e.values[k] = exported[k]
	}
	return nil
}

func (e *envFold) list() []string {
	out := make([]string, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, k+"="+e.values[k])
	}
	return out
}

// joinPath appends the elements of add missing from base.
func joinPath(base, add string) string {
	if base == "" {
		return add
	}
	parts := strings.Split(base, ":")
	for _, e := range strings.Split(add, ":") {
		if e != "" && !slices.Contains(parts, e) {
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, ":")
}
