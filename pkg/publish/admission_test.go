package publish

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

const setMember = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "1.0.0"
provides: [%s]
`

// writeSet writes a kind: set source listing refs and loads it.
func writeSet(t *testing.T, refs ...string) *spec.Kit {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "team")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: set\ndisplayName: Team\ndescription: A set for tests.\nversion: \"1.0.0\"\nkits:\n"
	for _, r := range refs {
		src += "  - ref: " + r + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "team.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, dir)
}

// TestRunSetComposition: a kind: set whose listed kits do not compose
// fails the validate stage with the composition problems, before anything
// is built or pushed; one whose kits compose gets past it.
func TestRunSetComposition(t *testing.T) {
	reg := at.Registry(t, true)
	for name, provides := range map[string]string{"a": "com.example/a", "b": "com.example/a", "c": "com.example/c"} {
		files := map[string]string{name + "/" + name + ".yaml": strings.Replace(setMember, "%s", provides, 1)}
		at.Push(t, reg+"/set/"+name+":1.0.0", at.NewKit(t, files, name+"/"+name+".yaml").Index(t))
	}
	tests := []struct {
		name  string
		kit   *spec.Kit
		stage Stage // "" publishes
		is    error
		want  string
	}{
		{name: "two providers", kit: writeSet(t, reg+"/set/a:1.0.0", reg+"/set/b:1.0.0"), stage: StageValidate, is: ErrComposition,
			want: "[SPEC-v3 §5.3/one-provider-per-name]"},
		{name: "unreadable kit", kit: writeSet(t, reg+"/set/a:1.0.0", reg+"/set/none:1.0.0"), stage: StageValidate,
			want: "resolving the set with the kits it lists: kits[1]"},
		{name: "composes", kit: writeSet(t, reg+"/set/a:1.0.0", reg+"/set/c:1.0.0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			o := f.options(t)
			o.Tag = ref
			res, err, _ := run(t, []*spec.Kit{tt.kit}, o)
			k := res.Kits[0]
			if k.FailedStage() != tt.stage {
				t.Fatalf("failed stage %q, want %q: %v", k.FailedStage(), tt.stage, err)
			}
			if tt.stage == "" {
				if !k.Tagged {
					t.Errorf("not tagged: %+v", k)
				}
				return
			}
			if tt.is != nil && !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want %v saying %q", err, tt.is, tt.want)
			}
			if len(f.j.calls) != 0 || k.Index.Digest.Hex != "" {
				t.Errorf("calls %v, index %v; want nothing built or pushed", f.j.calls, k.Index.Digest)
			}
		})
	}
}

// TestRunPolicy: with an admission policy, a kit beyond its ceiling fails
// the policy stage, naming each grant, its declaration and the rule,
// before anything is pushed; a kit within it publishes with the verdict.
func TestRunPolicy(t *testing.T) {
	policy := func(runtime string) *review.Policy {
		p, err := review.ParsePolicy("policy.yaml", []byte("policyVersion: \"1\"\nceiling:\n  network:\n    runtime: ["+runtime+"]\n"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	wide := load(t, "testdata/wide")
	tests := []struct {
		name   string
		policy *review.Policy
		stage  Stage
		want   []string
	}{
		{name: "beyond", policy: policy(`"*.example.org"`), stage: StagePolicy,
			want: []string{"policy failed: " + ErrBeyondCeiling.Error() + " (1 violation)",
				"testdata/wide/wide.yaml:15:", "network.runtime.allow telemetry.example.net is beyond the ceiling", "[ceiling.network.runtime]"}},
		{name: "within", policy: policy(`"*.example.org", "**.example.net"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			o := f.options(t)
			o.Tag, o.Policy = ref, tt.policy
			res, err, steps := run(t, []*spec.Kit{wide}, o)
			k := res.Kits[0]
			if k.FailedStage() != tt.stage {
				t.Fatalf("failed stage %q, want %q: %v", k.FailedStage(), tt.stage, err)
			}
			if !strings.Contains(strings.Join(steps, " "), "/policy#") || k.Ceiling == nil {
				t.Errorf("no policy stage ran: %v, ceiling %v", steps, k.Ceiling)
			}
			if tt.stage == "" {
				if !k.Tagged || !k.Ceiling.OK() {
					t.Errorf("tagged %v, ceiling %+v", k.Tagged, k.Ceiling)
				}
				return
			}
			for _, w := range tt.want {
				if !errors.Is(err, ErrBeyondCeiling) || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v; want it to say %q", err, w)
				}
			}
			if diff := cmp.Diff([]string(nil), f.j.calls); diff != "" || k.Tagged {
				t.Errorf("registry calls (-want +got):\n%s", diff)
			}
			m := res.Metadata().Kits[0]
			if len(m.CeilingViolations) != 1 || m.CeilingViolations[0].Grant != "telemetry.example.net" || m.CeilingViolations[0].At == nil || m.FailedStage != string(StagePolicy) {
				t.Errorf("metadata: failed at %s, violations %+v", m.FailedStage, m.CeilingViolations)
			}
		})
	}
	o := newFixture().options(t)
	o.Tag, o.Policy = ref, &review.Policy{PolicyVersion: review.PolicyVersion, Signers: []sign.TrustedSigner{{Identity: "a@example.org", Issuer: "https://issuer.example.org"}}}
	if _, err := Run(t.Context(), nil, []*spec.Kit{wide}, o, nil); err == nil || !strings.Contains(err.Error(), "states no ceiling") {
		t.Errorf("a policy without a ceiling: err = %v", err)
	}
}
