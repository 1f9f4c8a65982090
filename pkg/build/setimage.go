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
	env := map[string]string{}
	var envOrder []string
	envOwner := map[string]string{}
	setEnv := func(k, v, who string) error {
		if old, had := env[k]; had && old != v {
			if k != "PATH" {
				return fmt.Errorf("%s and %s set %s to different values (%q, %q); a merged kit has one value", envOwner[k], who, k, old, v)
			}
		}
		if _, had := env[k]; !had {
			envOrder = append(envOrder, k)
			envOwner[k] = who
		}
		env[k] = v
		return nil
	}
	start := 0
	if kind == spec.KindWorkload {
		c := configs[0]
		out = v1.Config{Entrypoint: c.Entrypoint, Cmd: c.Cmd, User: c.User, WorkingDir: c.WorkingDir, StopSignal: c.StopSignal,
			Labels: maps.Clone(c.Labels), ExposedPorts: maps.Clone(c.ExposedPorts), Volumes: maps.Clone(c.Volumes)}
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			if err := setEnv(k, v, stack[0].ref); err != nil {
				return out, err
			}
		}
		start = 1
	}
	var contracts []v1.Config
	for j := start; j < len(configs); j++ {
		c, who := configs[j], stack[j].ref
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			if k == "PATH" {
				v = joinPath(env["PATH"], v)
			}
			if err := setEnv(k, v, who); err != nil {
				return out, err
			}
		}
		for k, v := range c.Labels {
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			out.Labels[k] = v
		}
		for k := range c.ExposedPorts {
			if out.ExposedPorts == nil {
				out.ExposedPorts = map[string]struct{}{}
			}
			out.ExposedPorts[k] = struct{}{}
		}
		for k := range c.Volumes {
			if out.Volumes == nil {
				out.Volumes = map[string]struct{}{}
			}
			out.Volumes[k] = struct{}{}
		}
		if len(c.Entrypoint) > 0 || len(c.Cmd) > 0 || c.User != "" || c.WorkingDir != "" {
			contracts = append(contracts, c)
		}
	}
	if kind != spec.KindWorkload && len(contracts) == 1 {
		c := contracts[0]
		out.Entrypoint, out.Cmd, out.User, out.WorkingDir = c.Entrypoint, c.Cmd, c.User, c.WorkingDir
	}
	exported := map[string]string{}
	exporter := map[string]string{}
	for _, m := range stack {
		for _, k := range slices.Sorted(maps.Keys(m.env)) {
			if old, had := exported[k]; had && old != m.env[k] {
				return out, fmt.Errorf("%s and %s export %s as %q and %q; give them the same value", exporter[k], m.ref, k, old, m.env[k])
			}
			exported[k], exporter[k] = m.env[k], m.ref
		}
	}
	for _, k := range slices.Sorted(maps.Keys(exported)) {
		if _, had := env[k]; !had {
			envOrder = append(envOrder, k)
		}
		env[k] = exported[k]
	}
	for _, k := range envOrder {
		out.Env = append(out.Env, k+"="+env[k])
	}
	return out, nil
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
