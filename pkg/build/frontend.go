package build

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/containerd/platforms"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/exporter/containerimage/exptypes"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/solver/pb"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// frontend is kitsmith's gateway build function for one kit: it solves the
// recipe per platform with dockerfile.v0, shapes the content by kind, adds
// the staged sources and sets the annotations.
type frontend struct {
	k    *spec.Kit
	pub  *spec.Published
	opts *options

	// recipeName is the file name the recipe is solved under.
	recipeName string
	// buildArgs are the recipe's build args: kit build-phase args mapped to
	// their buildArg names, and SOURCE_DATE_EPOCH.
	buildArgs map[string]string

	// Set by run.
	final     *spec.Descriptor
	finalYAML []byte
	err       error
}

func newFrontend(k *spec.Kit, pub *spec.Published, opts *options) *frontend {
	fe := &frontend{k: k, pub: pub, opts: opts, buildArgs: map[string]string{}}
	if r := k.Recipe; r != nil {
		switch {
		case r.Inline:
			fe.recipeName = k.Stem + ".build.dockerfile"
		case r.Name != "":
			fe.recipeName = path.Base(r.Name)
		default:
			fe.recipeName = "Dockerfile"
		}
	}
	values, _ := spec.ResolveArgs(k.Descriptor.Args, spec.PhaseBuild, opts.BuildArgs) // errors were reported by Publish
	for name, v := range values {
		if dst := k.Descriptor.Args[name].BuildArg; dst != "" && !droppedOption("build-arg:"+dst) {
			fe.buildArgs[dst] = v
		}
	}
	if _, ok := fe.buildArgs["SOURCE_DATE_EPOCH"]; !ok {
		fe.buildArgs["SOURCE_DATE_EPOCH"] = strconv.FormatInt(opts.epoch, 10)
	}
	return fe
}

// run is the gateway build function.
func (fe *frontend) run(ctx context.Context, c gateway.Client) (*gateway.Result, error) {
	res, err := fe.build(ctx, c)
	if err != nil {
		fe.err = err
	}
	return res, err
}

// content is one platform's content before the staged sources: the state
// and its image config.
type content struct {
	state  llb.State
	config ocispecs.Image
	// provides are a workload's derived deb/ and apk/ provides.
	provides []string
}

func (fe *frontend) build(ctx context.Context, c gateway.Client) (*gateway.Result, error) {
	opts := fe.opts
	parts, err := fe.contents(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := fe.finish(parts); err != nil {
		return nil, err
	}
	files, err := stagedFiles(fe.k, fe.pub, fe.finalYAML)
	if err != nil {
		return nil, err
	}
	staged := stagedState(files, opts.epochTime(), fe.k.Stem)
	ann, err := artifact.Annotations(fe.final, opts.builtBy, opts.created)
	if err != nil {
		return nil, err
	}

	res := gateway.NewResult()
	exp := exptypes.Platforms{}
	refs := make([]gateway.Reference, len(parts))
	eg, ectx := errgroup.WithContext(ctx)
	for i := range parts {
		eg.Go(func() error {
			st := llb.Merge([]llb.State{parts[i].state, staged}, llb.WithCustomName("[kitsmith] add the staged sources"))
			def, err := st.Marshal(ectx, llb.Platform(opts.platforms[i]))
			if err != nil {
				return err
			}
			r, err := c.Solve(ectx, gateway.SolveRequest{Definition: def.ToPB()})
			if err != nil {
				return fmt.Errorf("%s: adding the staged sources: %w", opts.ids[i], err)
			}
			refs[i], err = r.SingleRef()
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	for i, part := range parts {
		id := opts.ids[i]
		cfg := part.config
		cfg.Platform = opts.platforms[i]
		cfgJSON, err := json.Marshal(cfg)
		if err != nil {
			return nil, err
		}
		res.AddRef(id, refs[i])
		res.AddMeta(exptypes.ExporterImageConfigKey+"/"+id, cfgJSON)
		exp.Platforms = append(exp.Platforms, exptypes.Platform{ID: id, Platform: opts.platforms[i]})
	}
	expJSON, err := json.Marshal(exp)
	if err != nil {
		return nil, err
	}
	res.AddMeta(exptypes.ExporterPlatformsKey, expJSON)
	for key, v := range ann {
		res.AddMeta(exptypes.AnnotationManifestKey(nil, key), []byte(v))
		res.AddMeta(exptypes.AnnotationIndexKey(key), []byte(v))
	}
	return res, nil
}

// finish derives the final published descriptor: the workload's derived
// provides, agreed by every platform, appended and re-validated.
func (fe *frontend) finish(parts []*content) error {
	fe.final, fe.finalYAML = fe.pub.Descriptor, fe.pub.YAML
	if fe.pub.Descriptor.Kind != spec.KindWorkload {
		return nil
	}
	lists := make([][]string, len(parts))
	for i, p := range parts {
		lists[i] = p.provides
	}
	derived := conform.IntersectProvides(lists...)
	if len(derived) == 0 {
		return nil
	}
	d, y, err := withDerivedProvides(fe.pub.YAML, fe.k.Stem, derived)
	if err != nil {
		return err
	}
	fe.final, fe.finalYAML = d, y
	return nil
}

// contents solves the recipe for every platform and shapes each
// platform's content by kind.
func (fe *frontend) contents(ctx context.Context, c gateway.Client) ([]*content, error) {
	opts := fe.opts
	parts := make([]*content, len(opts.platforms))
	if fe.k.Recipe == nil { // a declaration-only kit built through BuildKit
		for i := range parts {
			parts[i] = &content{state: llb.Scratch()}
		}
		return parts, nil
	}
	upper, err := fe.solveRecipe(ctx, c, "")
	if err != nil {
		return nil, err
	}
	mixin := fe.pub.Descriptor.Kind == spec.KindMixin
	var base finalBase
	var lower []solved
	if mixin {
		if base, err = finalStageBase(fe.k.Recipe.Text, fe.buildArgs); err != nil {
			return nil, fmt.Errorf("reading the recipe %s: %w", fe.k.Recipe.Path, err)
		}
		if base.stage {
			if lower, err = fe.solveRecipe(ctx, c, base.name); err != nil {
				return nil, err
			}
		}
	}
	eg, ectx := errgroup.WithContext(ctx)
	for i := range opts.platforms {
		eg.Go(func() error {
			var err error
			if mixin {
				var lo *solved
				if lower != nil {
					lo = &lower[i]
				}
				parts[i], err = fe.overlay(ectx, c, opts.platforms[i], upper[i], base, lo)
			} else {
				parts[i], err = fe.workload(ectx, upper[i])
			}
			if err != nil {
				return fmt.Errorf("%s: %w", opts.ids[i], err)
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return parts, nil
}

// workload shapes a workload's content: the image as built, which must
// state an ENTRYPOINT or a CMD, and the provides its package databases
// derive.
func (fe *frontend) workload(ctx context.Context, up solved) (*content, error) {
	if len(up.cfg.Config.Entrypoint) == 0 && len(up.cfg.Config.Cmd) == 0 {
		return nil, fmt.Errorf("workload kit image declares no ENTRYPOINT or CMD; the image config is the runtime contract, so set one in %s", fe.k.Recipe.Path)
	}
	st, err := stateOf(up.ref)
	if err != nil {
		return nil, err
	}
	provides, err := derivedProvides(ctx, up.ref)
	if err != nil {
		return nil, err
	}
	return &content{state: st, config: *up.cfg, provides: provides}, nil
}

// solved is one platform's result of a recipe solve.
type solved struct {
	ref gateway.Reference
	cfg *ocispecs.Image
}

// solveRecipe solves the recipe through dockerfile.v0, up to target (""
// for the final stage), for every platform in one frontend call (the
// build context is loaded once), and returns each platform's result in
// the order of the options' platforms.
func (fe *frontend) solveRecipe(ctx context.Context, c gateway.Client, target string) ([]solved, error) {
	r := fe.k.Recipe
	what := "the recipe"
	if target != "" {
		what = "stage " + target + " of the recipe"
	}
	df := llb.Scratch().File(llb.Mkfile(fe.recipeName, 0o644, r.Text), llb.WithCustomName("[kitsmith] recipe "+fe.recipeName))
	dfDef, err := df.Marshal(ctx)
	if err != nil {
		return nil, err
	}
	fopts := recipeOptions(c.BuildOpts().Opts, fe.recipeName, strings.Join(fe.opts.ids, ","), fe.buildArgs, target, fe.opts.NoCache)
	fopts["multi-platform"] = "true" // a result per platform, even for one
	res, err := c.Solve(ctx, gateway.SolveRequest{
		Frontend:       "dockerfile.v0",
		FrontendOpt:    fopts,
		FrontendInputs: map[string]*pb.Definition{"dockerfile": dfDef.ToPB()},
	})
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", what, r.Path, err)
	}
	ps, err := exptypes.ParsePlatforms(res.Metadata)
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", what, r.Path, err)
	}
	out := make([]solved, len(fe.opts.platforms))
	for i, want := range fe.opts.platforms {
		match := platforms.NewMatcher(want)
		found := false
		for _, p := range ps.Platforms {
			if !match.Match(p.Platform) {
				continue
			}
			raw, ok := res.Metadata[exptypes.ExporterImageConfigKey+"/"+p.ID]
			if !ok {
				return nil, fmt.Errorf("building %s %s returned no %s image config", what, r.Path, fe.opts.ids[i])
			}
			var img ocispecs.Image
			if err := json.Unmarshal(raw, &img); err != nil {
				return nil, fmt.Errorf("reading the %s image config of %s: %w", fe.opts.ids[i], r.Path, err)
			}
			out[i] = solved{ref: res.Refs[p.ID], cfg: &img}
			found = true
			break
		}
		if !found {
			return nil, fmt.Errorf("building %s %s returned no %s result", what, r.Path, fe.opts.ids[i])
		}
	}
	return out, nil
}

// stateOf returns a solved reference as a state; a nil reference (an empty
// result) is scratch.
func stateOf(ref gateway.Reference) (llb.State, error) {
	if ref == nil {
		return llb.Scratch(), nil
	}
	return ref.ToState()
}

// droppedOption reports a caller option that never reaches the recipe's
// dockerfile.v0 solve (SPEC-v3 §8.3), or that kitsmith sets itself.
func droppedOption(key string) bool {
	switch key {
	case "build-arg:BUILDKIT_SYNTAX", "multi-platform", "build-arg:BUILDKIT_MULTI_PLATFORM",
		"cmdline", "source", "frontend.caps", "requestid", "dockerfilekey",
		"filename", "platform", "target", "no-cache":
		return true
	}
	return strings.HasPrefix(key, "attest:") || strings.HasPrefix(key, "build-arg:BUILDKIT_ATTEST_")
}

// recipeOptions returns the dockerfile.v0 options of a recipe solve: the
// caller's options minus the dropped ones, the recipe's file name, one
// platform, the build args, the target stage and no-cache.
func recipeOptions(caller map[string]string, filename, platform string, buildArgs map[string]string, target string, noCache bool) map[string]string {
	out := map[string]string{}
	for k, v := range caller {
		if !droppedOption(k) {
			out[k] = v
		}
	}
	out["filename"] = filename
	out["platform"] = platform
	for k, v := range buildArgs {
		out["build-arg:"+k] = v
	}
	if target != "" {
		out["target"] = target
	}
	if noCache {
		out["no-cache"] = ""
	}
	return out
}
