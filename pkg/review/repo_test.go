package review

import (
	"bytes"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
	"github.com/kitsmith/kitsmith/schemas"
)

func policySchema(t *testing.T) *jsonschema.Schema { return policySchemaF(t) }

func policySchemaF(t testing.TB) *jsonschema.Schema {
	t.Helper()
	b, err := fs.ReadFile(schemas.FS(), schemas.Policy)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemas.BaseURL+schemas.Policy, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemas.BaseURL + schemas.Policy)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaValid reports whether a YAML policy validates against the schema.
func schemaValid(t *testing.T, s *jsonschema.Schema, src []byte) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	j, err := jsonRoundTrip(v)
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(j)
}

func jsonRoundTrip(v any) (any, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(&b)
}

var yamlBlockRE = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// The schema and LoadPolicy agree on kits/policy.yaml, every example of
// docs/policy.md and the refusals.
func TestPolicySchema(t *testing.T) {
	s := policySchema(t)
	docs, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.ReadFile("../../kits/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := [][]byte{own}
	for _, m := range yamlBlockRE.FindAllSubmatch(docs, -1) {
		good = append(good, m[1])
	}
	if len(good) < 4 {
		t.Fatalf("found %d policies, want kits/policy.yaml and three examples", len(good))
	}
	for i, src := range good {
		if err := schemaValid(t, s, src); err != nil {
			t.Errorf("policy %d: schema: %v", i, err)
		}
		if _, err := ParsePolicy("p.yaml", src); err != nil {
			t.Errorf("policy %d: %v", i, err)
		}
	}
	for _, bad := range []string{
		"policyVersion: \"1\"\n",
		"policyVersion: \"1\"\nceiling: {netwrk: {}}\n",
		"policyVersion: \"1\"\nsigners: [{identityRegexp: 'https://github.com/', issuer: i}]\n",
		"policyVersion: \"1\"\nsigners: [{identity: a}]\n",
		"policyVersion: \"1\"\nceiling: {volumes: [data]}\n",
		"policyVersion: \"1\"\nceiling: {network: {runtime: [a.*.example.org]}}\n",
		"policyVersion: \"1\"\nceiling: {baseline: {digest: sha256:abc}}\n",
		"policyVersion: \"1\"\nceiling: {baseline: {}}\n",
	} {
		if schemaValid(t, s, []byte(bad)) == nil {
			t.Errorf("the schema accepts %q", bad)
		}
		if _, err := ParsePolicy("p.yaml", []byte(bad)); err == nil {
			t.Errorf("ParsePolicy accepts %q", bad)
		}
	}
}

func repoKit(t *testing.T, dir string) *Kit {
	t.Helper()
	k, err := spec.LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := FromSource(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rk
}

// The repository's kits stay within kits/policy.yaml in their effective
// form; another apiHost is beyond it, named at its declaration.
func TestRepoKitsWithinPolicy(t *testing.T) {
	p, err := LoadPolicy("../../kits/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../../kits/inside", "../../kits/outside"} {
		eff, err := repoKit(t, dir).Effective(nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := CheckKit(eff, p)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Errorf("%s: %v", dir, r.Violations)
		}
	}
	eff, err := repoKit(t, "../../kits/inside").Effective(map[string]string{"apiHost": "api.example.net"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := CheckKit(eff, p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ceiling.network.runtime network.runtime.allow: api.example.net"}, rules(r.Violations)); diff != "" {
		t.Fatalf("violations (-want +got):\n%s", diff)
	}
	if at := r.Violations[0].At; at == nil || !strings.HasSuffix(at.File, "reshapr-inside.yaml") || at.Line == 0 {
		t.Errorf("position = %v", at)
	}
}
