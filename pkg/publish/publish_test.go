package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

const signer = "dev@example.org"

type fixture struct {
	j        *journal
	reg      *fakeRegistry
	signer   *fakeSigner
	verifier *fakeVerifier
}

func newFixture() *fixture {
	j := &journal{}
	return &fixture{j: j, reg: newFakeRegistry(j), signer: &fakeSigner{j: j, identity: signer}, verifier: &fakeVerifier{j: j}}
}

func (f *fixture) options(t *testing.T) Options {
	return Options{
		Registry: f.reg, Signer: f.signer, Verifier: f.verifier,
		Build: build.Options{TempDir: t.TempDir()},
	}
}

func load(t *testing.T, path string) *spec.Kit {
	t.Helper()
	k, err := spec.LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// run publishes kits and returns the result, the error and the names of
// the steps reported, in the order they started.
func run(t *testing.T, kits []*spec.Kit, o Options) (*Result, error, []string) {
	t.Helper()
	ev := make(chan progress.Event)
	var steps []string
	var wg sync.WaitGroup
	wg.Go(func() {
		for e := range ev {
			if e.Step != nil && e.Step.Completed.IsZero() {
				steps = append(steps, e.Step.ID)
			}
		}
	})
	res, err := Run(context.Background(), nil, kits, o, ev)
	wg.Wait()
	return res, err, steps
}

const ref = "127.0.0.1:1/kits/good:1.0.0"

func TestRunOrder(t *testing.T) {
	f := newFixture()
	o := f.options(t)
	o.Tag = ref
	kit := load(t, "testdata/good")
	res, err, steps := run(t, []*spec.Kit{kit}, o)
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kits[0]
	d := k.Index.Digest.String()
	// Signing and attesting run at once: their order is free.
	calls := append([]string(nil), f.j.calls...)
	if len(calls) > 3 && strings.HasPrefix(calls[2], "attest") {
		calls[2], calls[3] = calls[3], calls[2]
	}
	want := []string{
		"head " + ref, "push " + ref, "sign " + d, "attest " + SLSAPredicateType + " " + d,
		"verify " + d + " as " + signer, "head " + ref, "tag " + ref, "head " + ref, // the read-back
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got, ok := f.reg.tag(ref); !ok || got.Digest != k.Index.Digest {
		t.Errorf("tag %s = %v, %v; want %s", ref, got.Digest, ok, k.Index.Digest)
	}
	if !k.Tagged || k.Unchanged || k.Unsigned || k.Signature == nil || k.Provenance == nil || k.Verified == nil {
		t.Errorf("result = %+v; want tagged, signed, attested and verified", k)
	}
	if len(k.Manifests) != 2 || len(k.Pushed) != 5 { // 2 manifests, index, signature, provenance
		t.Errorf("manifests %d, pushed %v; want 2 and 5", len(k.Manifests), k.Pushed)
	}
	var stages []string
	for _, s := range steps {
		st, _, _ := strings.Cut(strings.TrimPrefix(s, kit.Path+"/"), "#")
		stages = append(stages, st)
	}
	if len(stages) > 9 && stages[8] == "attest" {
		stages[8], stages[9] = stages[9], stages[8]
	}
	wantStages := []string{"validate", "lint", "build", "build/publish", "build/assemble", "build/check", "tag", "push", "sign", "attest", "verify", "tag"}
	if diff := cmp.Diff(wantStages, stages); diff != "" {
		t.Errorf("progress steps (-want +got):\n%s", diff)
	}
}

func TestRunStageFailures(t *testing.T) {
	checkErr := &build.CheckError{Report: &conform.Report{Findings: []conform.Finding{{Check: "kit-descriptor", Severity: conform.SeverityFail, Message: "broken"}}}}
	tests := []struct {
		name    string
		kit     string
		setup   func(*fixture, *Options)
		stage   Stage
		is      error
		pushed  bool // something was pushed by digest
		message string
	}{
		{name: "invalid kit", kit: "testdata/invalid", stage: StageValidate, is: ErrInvalidKit, message: `invalid version "v1.2"`},
		{name: "lint error", kit: "testdata/lint-error", stage: StageLint, is: ErrLintFindings, message: "[literal-secret]"},
		{name: "build failure", kit: "testdata/good", stage: StageBuild, message: "solver exploded",
			setup: func(_ *fixture, o *Options) { o.Builder = failingBuilder{err: errors.New("solver exploded")} }},
		{name: "check failure", kit: "testdata/good", stage: StageCheck, message: "FAIL kit-descriptor [index]: broken",
			setup: func(_ *fixture, o *Options) { o.Builder = failingBuilder{err: checkErr} }},
		{name: "registry refuses the push", kit: "testdata/good", stage: StagePush, message: "DENIED",
			setup: func(f *fixture, _ *Options) { f.reg.pushErr = errors.New("DENIED: repository is read-only") }},
		{name: "signing failure", kit: "testdata/good", stage: StageSign, pushed: true, message: "no identity token",
			setup: func(f *fixture, _ *Options) { f.signer.signErr = errors.New("no identity token") }},
		{name: "attestation failure", kit: "testdata/good", stage: StageAttest, pushed: true, message: "log unreachable",
			setup: func(f *fixture, _ *Options) { f.signer.attestErr = errors.New("log unreachable") }},
		{name: "verification failure", kit: "testdata/good", stage: StageVerify, pushed: true, message: "no signature by " + signer,
			setup: func(f *fixture, _ *Options) { f.signer.detach = true }},
		{name: "tag exists elsewhere", kit: "testdata/good", stage: StageTag, is: ErrTagExists, message: "move it with Options.Force",
			setup: func(f *fixture, _ *Options) {
				f.reg.tags[ref] = v1.Descriptor{Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 64)}}
			}},
		{name: "registry refuses the tag", kit: "testdata/good", stage: StageTag, pushed: true, message: "tag immutable",
			setup: func(f *fixture, _ *Options) { f.reg.tagErr = errors.New("tag immutable") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			o := f.options(t)
			o.Tag = ref
			if tt.setup != nil {
				tt.setup(f, &o)
			}
			before, existed := f.reg.tag(ref)
			res, err, _ := run(t, []*spec.Kit{load(t, tt.kit)}, o)
			var se *StageError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v; want a *StageError", err)
			}
			if se.Stage != tt.stage || res.Kits[0].FailedStage() != tt.stage {
				t.Errorf("stage = %s (result %s); want %s", se.Stage, res.Kits[0].FailedStage(), tt.stage)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v; want it to wrap %v", err, tt.is)
			}
			msg := err.Error()
			if !strings.Contains(msg, string(tt.stage)+" failed") || !strings.Contains(msg, tt.message) {
				t.Errorf("message %q; want it to name the stage %s and say %q", msg, tt.stage, tt.message)
			}
			after, exists := f.reg.tag(ref)
			if exists != existed || after.Digest != before.Digest {
				t.Errorf("tag %s moved from %v to %v", ref, before.Digest, after.Digest)
			}
			if k := res.Kits[0]; k.Tagged || (len(k.Pushed) > 0) != tt.pushed {
				t.Errorf("tagged %v, pushed %v; want untagged and pushed=%v", k.Tagged, k.Pushed, tt.pushed)
			}
		})
	}
}

func TestRunExistingTag(t *testing.T) {
	kit := load(t, "testdata/good")
	f := newFixture()
	o := f.options(t)
	o.Tag = ref
	first, err, _ := run(t, []*spec.Kit{kit}, o)
	if err != nil {
		t.Fatal(err)
	}
	digest := first.Kits[0].Index.Digest

	t.Run("same digest is a no-op", func(t *testing.T) {
		mark := len(f.j.calls)
		res, err, _ := run(t, []*spec.Kit{kit}, o)
		if err != nil {
			t.Fatal(err)
		}
		if k := res.Kits[0]; !k.Unchanged || k.Tagged || len(k.Pushed) != 0 {
			t.Errorf("result %+v; want unchanged, nothing pushed or tagged", k)
		}
		if diff := cmp.Diff([]string{"head " + ref}, f.j.calls[mark:]); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	other := v1.Descriptor{Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("a", 64)}}
	t.Run("another digest is refused", func(t *testing.T) {
		f.reg.tags[ref] = other
		_, err, _ := run(t, []*spec.Kit{kit}, o)
		if !errors.Is(err, ErrTagExists) {
			t.Fatalf("err = %v; want ErrTagExists", err)
		}
		if got, _ := f.reg.tag(ref); got.Digest != other.Digest {
			t.Errorf("tag moved to %s", got.Digest)
		}
	})
	t.Run("--force moves it", func(t *testing.T) {
		f.reg.tags[ref] = other
		o := o
		o.Force = true
		res, err, _ := run(t, []*spec.Kit{kit}, o)
		if err != nil {
			t.Fatal(err)
		}
		k := res.Kits[0]
		if !k.Tagged || !k.Moved || k.Previous == nil || k.Previous.Digest != other.Digest || k.Signature == nil {
			t.Errorf("result %+v; want signed, tagged, moved from %s", k, other.Digest)
		}
		if got, _ := f.reg.tag(ref); got.Digest != digest {
			t.Errorf("tag = %s; want %s", got.Digest, digest)
		}
	})
}

func TestRunConcurrentOneFailing(t *testing.T) {
	f := newFixture()
	// Both good kits must be signing at the same moment, even with one
	// job: signing is not serialised behind the build slots.
	f.signer.barrier = newBarrier(2)
	o := f.options(t)
	o.TagTemplate = "127.0.0.1:1/kits/{stem}:{version}"
	o.Jobs = 1
	kits := []*spec.Kit{load(t, "../../kits/outside"), load(t, "testdata/invalid"), load(t, "../../kits/inside")}
	res, err, _ := run(t, kits, o)
	var se *StageError
	if !errors.As(err, &se) || se.Kit != kits[1].Path || se.Stage != StageValidate {
		t.Fatalf("err = %v; want the invalid kit's validate failure", err)
	}
	var got []string
	for _, k := range res.Kits {
		got = append(got, fmt.Sprintf("%s tagged=%v failed=%q", k.Reference, k.Tagged, k.FailedStage()))
	}
	want := []string{
		"127.0.0.1:1/kits/reshapr-outside:0.3.0 tagged=true failed=\"\"",
		"127.0.0.1:1/kits/invalid:v1.2 tagged=false failed=\"validate\"",
		"127.0.0.1:1/kits/reshapr-inside:" + kits[2].Descriptor.Version + " tagged=true failed=\"\"",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kits (-want +got):\n%s", diff)
	}
	if len(res.Failed()) != 1 {
		t.Errorf("failed = %d kits; want 1", len(res.Failed()))
	}
}

func TestRunUnsigned(t *testing.T) {
	f := newFixture()
	o := f.options(t)
	o.Tag = ref
	o.Signer, o.Verifier, o.Unsigned = nil, nil, true
	res, err, _ := run(t, []*spec.Kit{load(t, "testdata/good")}, o)
	if err != nil {
		t.Fatal(err)
	}
	if k := res.Kits[0]; !k.Unsigned || !k.Tagged || k.Signature != nil {
		t.Errorf("result %+v; want unsigned and tagged", k)
	}
	for _, c := range f.j.calls {
		if strings.HasPrefix(c, "sign") || strings.HasPrefix(c, "verify") || strings.HasPrefix(c, "attest") {
			t.Errorf("unsigned publish called %q", c)
		}
	}
}

func TestRunRecursive(t *testing.T) {
	f := newFixture()
	o := f.options(t)
	o.Tag = ref
	o.Recursive = true
	res, err, _ := run(t, []*spec.Kit{load(t, "testdata/good")}, o)
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kits[0]
	if len(k.ManifestSignatures) != len(k.Manifests) || len(k.Manifests) != 2 {
		t.Fatalf("%d manifest signatures for %d manifests; want one each", len(k.ManifestSignatures), len(k.Manifests))
	}
	for i, s := range k.ManifestSignatures {
		if s.Subject.Digest != k.Manifests[i].Digest {
			t.Errorf("signature %d is of %s; want %s", i, s.Subject.Digest, k.Manifests[i].Digest)
		}
	}
}

func TestRunOptions(t *testing.T) {
	f := newFixture()
	good := load(t, "testdata/good")
	tests := []struct {
		name string
		edit func(*Options)
		kits int
		want string
	}{
		{"no tag", func(o *Options) {}, 1, "no reference"},
		{"tag and template", func(o *Options) { o.Tag, o.TagTemplate = ref, "r.example.org/{stem}:{version}" }, 1, "exclusive"},
		{"one tag, two kits", func(o *Options) { o.Tag = ref }, 2, "tag template"},
		{"unknown placeholder", func(o *Options) { o.TagTemplate = "r.example.org/{owner}:{version}" }, 1, "{owner}"},
		{"unsigned with a signer", func(o *Options) { o.Tag, o.Unsigned = ref, true }, 1, "unsigned contradicts"},
		{"no signer", func(o *Options) { o.Tag, o.Signer = ref, nil }, 1, "signer and a verifier"},
		{"outputs", func(o *Options) { o.Tag, o.Build.Outputs = ref, []build.Output{{Type: build.OutputOCI, Dest: "x"}} }, 1, "outputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := f.options(t)
			tt.edit(&o)
			kits := make([]*spec.Kit, tt.kits)
			for i := range kits {
				kits[i] = good
			}
			res, err := Run(context.Background(), nil, kits, o, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || res != nil {
				t.Errorf("Run = %v, %v; want no result and an error saying %q", res, err, tt.want)
			}
		})
	}
}

func TestRunProvenance(t *testing.T) {
	f := newFixture()
	o := f.options(t)
	o.Tag = ref
	o.Provenance = ProvenanceOptions{BuilderID: "https://example.org/ci/run", Version: "v9.9.9"}
	if _, err, _ := run(t, []*spec.Kit{load(t, "testdata/good")}, o); err != nil {
		t.Fatal(err)
	}
	if len(f.signer.predicates) != 1 {
		t.Fatalf("%d predicates; want 1", len(f.signer.predicates))
	}
	var p Provenance
	if err := json.Unmarshal(f.signer.predicates[0], &p); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %s %v %s %s", p.RunDetails.Builder.ID, p.RunDetails.Builder.Version["kitsmith"],
		p.BuildDefinition.ExternalParameters.Platforms, p.BuildDefinition.InternalParameters.Route, p.BuildDefinition.BuildType)
	want := "https://example.org/ci/run v9.9.9 [linux/amd64 linux/arm64] in-process " + BuildType
	if got != want {
		t.Errorf("provenance = %s; want %s", got, want)
	}
	if !strings.HasSuffix(p.BuildDefinition.ExternalParameters.Source.Path, "testdata/good/good.yaml") {
		t.Errorf("source path = %q; want the descriptor's path", p.BuildDefinition.ExternalParameters.Source.Path)
	}
}

// TestRunJobs: at most Jobs kits build at once.
func TestRunJobs(t *testing.T) {
	kits := []*spec.Kit{load(t, "../../kits/outside"), load(t, "../../kits/inside"), load(t, "testdata/good")}
	for _, jobs := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(jobs), func(t *testing.T) {
			f := newFixture()
			o := f.options(t)
			o.TagTemplate, o.Jobs = "127.0.0.1:1/kits/{stem}:{version}", jobs
			b := &countingBuilder{overlap: min(jobs, 2)}
			o.Builder = b
			if _, err, _ := run(t, kits, o); err != nil {
				t.Fatal(err)
			}
			if b.peak > jobs || (jobs > 1 && b.peak < 2) {
				t.Errorf("%d builds at once with --jobs %d", b.peak, jobs)
			}
		})
	}
}
