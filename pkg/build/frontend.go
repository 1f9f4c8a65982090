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
	parts := make([]*content, len(opts.platforms))
	eg, ectx := errgroup.WithContext(ctx)
	for i := range opts.platforms {
		eg.Go(func() error {
			part, err := fe.content(ectx, c, opts.platforms[i])
			if err != nil {
				return fmt.Errorf("%s: %w", opts.ids[i], err)
			}
			parts[i] = part
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
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
	eg, ectx = errgroup.WithContext(ctx)
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
	derived := artifact.IntersectProvides(lists...)
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

// content solves one platform's content.
func (fe *frontend) content(ctx context.Context, c gateway.Client, pl ocispecs.Platform) (*content, error) {
	if fe.k.Recipe == nil { // a declaration-only kit built through BuildKit
		return &content{state: llb.Scratch()}, nil
	}
	ref, cfg, err := fe.solveRecipe(ctx, c, pl, "")
	if err != nil {
		return nil, err
	}
	upper, err := stateOf(ref)
	if err != nil {
		return nil, err
	}
	if fe.pub.Descriptor.Kind != spec.KindMixin {
		if len(cfg.Config.Entrypoint) == 0 && len(cfg.Config.Cmd) == 0 {
			return nil, fmt.Errorf("workload kit image declares no ENTRYPOINT or CMD; the image config is the runtime contract, so set one in %s", fe.k.Recipe.Path)
		}
		provides, err := derivedProvides(ctx, ref)
		if err != nil {
			return nil, err
		}
		return &content{state: upper, config: *cfg, provides: provides}, nil
	}
	return fe.overlay(ctx, c, pl, upper, cfg)
}

// solveRecipe solves the recipe for one platform through dockerfile.v0,
// up to target ("" for the final stage), and returns the result and its
// image config.
func (fe *frontend) solveRecipe(ctx context.Context, c gateway.Client, pl ocispecs.Platform, target string) (gateway.Reference, *ocispecs.Image, error) {
	r := fe.k.Recipe
	df := llb.Scratch().File(llb.Mkfile(fe.recipeName, 0o644, r.Text), llb.WithCustomName("[kitsmith] recipe "+fe.recipeName))
	dfDef, err := df.Marshal(ctx)
	if err != nil {
		return nil, nil, err
	}
	fopts := recipeOptions(c.BuildOpts().Opts, fe.recipeName, platforms.Format(pl), fe.buildArgs, target, fe.opts.NoCache)
	res, err := c.Solve(ctx, gateway.SolveRequest{
		Frontend:       "dockerfile.v0",
		FrontendOpt:    fopts,
		FrontendInputs: map[string]*pb.Definition{"dockerfile": dfDef.ToPB()},
		Evaluate:       true,
	})
	if err != nil {
		what := "the recipe"
		if target != "" {
			what = "stage " + target + " of the recipe"
		}
		return nil, nil, fmt.Errorf("building %s %s: %w", what, r.Path, err)
	}
	ref, err := res.SingleRef()
	if err != nil {
		return nil, nil, err
	}
	raw, ok := res.Metadata[exptypes.ExporterImageConfigKey]
	if !ok {
		return nil, nil, fmt.Errorf("building %s returned no image config", r.Path)
	}
	var img ocispecs.Image
	if err := json.Unmarshal(raw, &img); err != nil {
		return nil, nil, fmt.Errorf("reading the image config of %s: %w", r.Path, err)
	}
	return ref, &img, nil
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
