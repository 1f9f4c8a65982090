package publish

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// racingRegistry is NewRegistry's registry with another publish racing
// for the same tag: it points the tag at racer just before (before) or
// just after (after) this run's write.
type racingRegistry struct {
	Registry
	racer         v1.Descriptor
	before, after bool
}

func (r *racingRegistry) Target(ctx context.Context, ref string) (artifact.Target, error) {
	t, err := r.Registry.Target(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &racingTarget{Target: t, r: r, ref: ref}, nil
}

type racingTarget struct {
	artifact.Target
	r   *racingRegistry
	ref string
}

func (t *racingTarget) race(ctx context.Context) error {
	other, err := artifact.NewTarget(ctx, t.ref)
	if err != nil {
		return err
	}
	return other.Tag(ctx, t.r.racer)
}

func (t *racingTarget) Tag(ctx context.Context, d v1.Descriptor) error { return t.TagIf(ctx, d, nil) }

func (t *racingTarget) TagIf(ctx context.Context, d v1.Descriptor, prev *v1.Hash) error {
	if t.r.before {
		if err := t.race(ctx); err != nil {
			return err
		}
	}
	if err := t.Target.(ConditionalTagger).TagIf(ctx, d, prev); err != nil {
		return err
	}
	if t.r.after {
		return t.race(ctx)
	}
	return nil
}

// TestRunTagRace publishes while another run writes the same tag: written
// right after this run's write, the read-back sees it and the run fails
// with ErrTagRaced, on every registry; written between this run's check
// and its write, a registry honouring conditional writes refuses this
// run's write (the other run's tag stays), while one that ignores them
// (distribution, go-containerregistry's) takes it and the read-back
// confirms it. With no race the tag is written and read back.
func TestRunTagRace(t *testing.T) {
	regs := map[string]string{"referrers-api": at.Registry(t, true), "conditional": at.ConditionalRegistry(t)}
	if r := os.Getenv("KITSMITH_TEST_REGISTRY"); r != "" {
		regs["distribution"] = r
	} else if os.Getenv("KITSMITH_INTEGRATION") == "1" {
		t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is unset")
	}
	kit := load(t, "testdata/good")
	for regName, reg := range regs {
		tests := []struct {
			name          string
			before, after bool
			wantRaced     bool
		}{
			{name: "no race"},
			{name: "written after this run", after: true, wantRaced: true},
			{name: "moved before this run", before: true, wantRaced: regName == "conditional"},
		}
		for _, tt := range tests {
			t.Run(regName+"/"+tt.name, func(t *testing.T) {
				ctx := context.Background()
				repo := reg + "/kitsmith-publish-race/" + strings.ReplaceAll(strings.ToLower(t.Name()[len("TestRunTagRace/"):]), " ", "-") + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
				racer, err := artifact.Head(ctx, at.Push(t, repo+":racer", at.Mixin(t).Index(t)))
				if err != nil {
					t.Fatal(err)
				}
				f := newFixture()
				o := f.options(t)
				o.Registry = &racingRegistry{Registry: NewRegistry(), racer: racer, before: tt.before, after: tt.after}
				o.Tag = repo + ":1.0.0"
				res, err, _ := run(t, []*spec.Kit{kit}, o)
				k := res.Kits[0]
				tag, herr := artifact.Head(ctx, o.Tag)
				if herr != nil {
					t.Fatal(herr)
				}
				if !tt.wantRaced {
					if err != nil || !k.Tagged || tag.Digest != k.Index.Digest {
						t.Fatalf("err %v, tagged %v, tag %s; want %s published", err, k.Tagged, tag.Digest, k.Index.Digest)
					}
					return
				}
				var se *StageError
				if !errors.As(err, &se) || se.Stage != StageTag || !errors.Is(err, ErrTagRaced) || k.Tagged {
					t.Fatalf("err = %v, tagged %v; want the tag stage failing with ErrTagRaced", err, k.Tagged)
				}
				if tag.Digest != racer.Digest || !strings.Contains(err.Error(), racer.Digest.String()) && !strings.Contains(err.Error(), "refused") {
					t.Errorf("tag = %s, err %q; want the other run's %s kept and named", tag.Digest, err, racer.Digest)
				}
			})
		}
	}
}
