package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/distribution/reference"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ErrUnpinnedBase reports a mixin recipe whose final stage builds on an
// external image that is not pinned by digest.
var ErrUnpinnedBase = errors.New("mixin base image not pinned by digest")

// finalBase is what a recipe's final stage builds FROM.
type finalBase struct {
	// name is "scratch", an earlier stage's name, or an image reference.
	name string
	// stage reports an earlier stage of the recipe.
	stage bool
}

// finalStageBase parses the recipe and returns its final stage's base,
// with ARG references in the FROM expanded from the meta-ARG defaults and
// the build args.
func finalStageBase(recipe []byte, buildArgs map[string]string) (finalBase, error) {
	ast, err := parser.Parse(bytes.NewReader(recipe))
	if err != nil {
		return finalBase{}, err
	}
	stages, metaArgs, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		return finalBase{}, err
	}
	if len(stages) == 0 {
		return finalBase{}, fmt.Errorf("the recipe has no FROM")
	}
	args := map[string]string{}
	for _, ma := range metaArgs {
		for _, kv := range ma.Args {
			if kv.Value != nil {
				args[kv.Key] = *kv.Value
			}
		}
	}
	maps.Copy(args, buildArgs)
	last := stages[len(stages)-1]
	base := os.Expand(last.BaseName, func(n string) string { return args[n] })
	if base == "" || strings.Contains(base, "$") {
		return finalBase{}, fmt.Errorf("the final stage's FROM %q does not expand to an image or stage name", last.BaseName)
	}
	if strings.EqualFold(base, "scratch") {
		return finalBase{name: "scratch"}, nil
	}
	for _, s := range stages[:len(stages)-1] {
		if s.Name != "" && strings.EqualFold(s.Name, base) {
			return finalBase{name: s.Name, stage: true}, nil
		}
	}
	return finalBase{name: base}, nil
}

// precheck refuses, before anything is solved, a mixin recipe whose final
// stage builds on an external image that is not pinned by digest.
func (fe *frontend) precheck() error {
	r := fe.k.Recipe
	if r == nil || fe.pub.Descriptor.Kind != spec.KindMixin {
		return nil
	}
	base, err := finalStageBase(r.Text, fe.buildArgs)
	if err != nil {
		return fmt.Errorf("reading the recipe %s: %w", r.Path, err)
	}
	if base.name == "scratch" || base.stage {
		return nil
	}
	_, err = pinnedBase(base.name, r.Path)
	return err
}

// overlay shapes a mixin's content on one platform: a FROM scratch final
// stage as built, otherwise the difference between the final stage's base
// (lower, when it is an earlier stage of the recipe; else the pinned
// image) and the built image; the config reduced to what the recipe
// stated over that base.
func (fe *frontend) overlay(ctx context.Context, c gateway.Client, pl ocispecs.Platform, up solved, base finalBase, lower *solved) (*content, error) {
	upper, err := stateOf(up.ref)
	if err != nil {
		return nil, err
	}
	if base.name == "scratch" {
		return &content{state: upper, config: ocispecs.Image{Config: configDelta(scratchDefaults(), up.cfg.Config)}}, nil
	}
	var lowerState llb.State
	var lowerCfg ocispecs.ImageConfig
	if lower != nil {
		if lowerState, err = stateOf(lower.ref); err != nil {
			return nil, err
		}
		lowerCfg = lower.cfg.Config
	} else {
		pinned, err := pinnedBase(base.name, fe.k.Recipe.Path)
		if err != nil {
			return nil, err
		}
		_, _, raw, err := c.ResolveImageConfig(ctx, pinned, sourceresolver.Opt{
			ImageOpt: &sourceresolver.ResolveImageOpt{Platform: &pl},
		})
		if err != nil {
			return nil, fmt.Errorf("resolving the mixin base %s: %w", pinned, err)
		}
		var img ocispecs.Image
		if err := json.Unmarshal(raw, &img); err != nil {
			return nil, fmt.Errorf("reading the config of the mixin base %s: %w", pinned, err)
		}
		lowerCfg = img.Config
		lowerState = llb.Image(pinned, llb.Platform(pl), llb.WithCustomName("[kitsmith] mixin base "+base.name))
	}
	diff := llb.Diff(lowerState, upper, llb.WithCustomName("[kitsmith] overlay of "+fe.k.Stem+" over "+base.name))
	return &content{state: diff, config: ocispecs.Image{Config: configDelta(lowerCfg, up.cfg.Config)}}, nil
}

// scratchDefaults is the config dockerfile.v0 gives a FROM scratch stage
// before any instruction: the default PATH and working directory. They are
// not statements of the recipe, so a mixin's config leaves them out.
func scratchDefaults() ocispecs.ImageConfig {
	return ocispecs.ImageConfig{
		Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		WorkingDir: "/",
	}
}

// pinnedBase checks that an external base image is pinned by digest and
// returns its normalised reference.
func pinnedBase(name, recipe string) (string, error) {
	named, err := reference.ParseNormalizedNamed(name)
	if err != nil {
		return "", fmt.Errorf("the final stage of %s builds FROM %q, which is not an image reference: %w", recipe, name, err)
	}
	if _, ok := named.(reference.Canonical); !ok {
		return "", fmt.Errorf("%w: the final stage of %s builds FROM %s; a mixin publishes only what its recipe adds, computed against that base, so pin it: FROM %s@sha256:<digest> (or build the overlay FROM scratch)",
			ErrUnpinnedBase, recipe, name, reference.TrimNamed(named).String())
	}
	return named.String(), nil
}

// configDelta reduces a mixin's built config to what its recipe stated
// over its base: new or changed ENV (PATH reduced to the elements it
// added), new or changed LABELs, new EXPOSE and VOLUME entries, and
// ENTRYPOINT, CMD, USER, WORKDIR and STOPSIGNAL when they changed.
func configDelta(lower, upper ocispecs.ImageConfig) ocispecs.ImageConfig {
	var d ocispecs.ImageConfig
	if !slices.Equal(lower.Entrypoint, upper.Entrypoint) {
		d.Entrypoint = upper.Entrypoint
	}
	if !slices.Equal(lower.Cmd, upper.Cmd) {
		d.Cmd = upper.Cmd
	}
	if lower.User != upper.User {
		d.User = upper.User
	}
	if lower.WorkingDir != upper.WorkingDir {
		d.WorkingDir = upper.WorkingDir
	}
	if lower.StopSignal != upper.StopSignal {
		d.StopSignal = upper.StopSignal
	}
	base := map[string]string{}
	for _, kv := range lower.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			base[k] = v
		}
	}
	for _, kv := range upper.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if k == "PATH" {
			if added := addedPathElements(base["PATH"], v); len(added) > 0 {
				d.Env = append(d.Env, "PATH="+strings.Join(added, ":"))
			}
			continue
		}
		if old, had := base[k]; !had || old != v {
			d.Env = append(d.Env, kv)
		}
	}
	for k, v := range upper.Labels {
		if old, had := lower.Labels[k]; !had || old != v {
			if d.Labels == nil {
				d.Labels = map[string]string{}
			}
			d.Labels[k] = v
		}
	}
	for k := range upper.ExposedPorts {
		if _, had := lower.ExposedPorts[k]; !had {
			if d.ExposedPorts == nil {
				d.ExposedPorts = map[string]struct{}{}
			}
			d.ExposedPorts[k] = struct{}{}
		}
	}
	for k := range upper.Volumes {
		if _, had := lower.Volumes[k]; !had {
			if d.Volumes == nil {
				d.Volumes = map[string]struct{}{}
			}
			d.Volumes[k] = struct{}{}
		}
	}
	return d
}

// addedPathElements returns the elements of upper's PATH that lower's
// lacks, in upper's order, without duplicates.
func addedPathElements(lower, upper string) []string {
	seen := map[string]bool{}
	for _, e := range strings.Split(lower, ":") {
		seen[e] = true
	}
	var out []string
	for _, e := range strings.Split(upper, ":") {
		if e != "" && !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}
