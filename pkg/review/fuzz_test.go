package review

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParsePolicy holds ParsePolicy to the schema: it never panics, and a
// policy it accepts the schema accepts too. Seeded from kits/policy.yaml
// and the examples of docs/policy.md.
func FuzzParsePolicy(f *testing.F) {
	for _, p := range []string{"../../kits/policy.yaml", "../../docs/policy.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range yamlBlockRE.FindAllSubmatch(b, -1) {
			f.Add(m[1])
		}
		if p[len(p)-4:] == "yaml" {
			f.Add(b)
		}
	}
	f.Add([]byte("policyVersion: \"1\"\nceiling: {network: {runtime: [\"**\"]}, volumes: [/data/**]}\n"))
	s := policySchemaF(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := ParsePolicy("p.yaml", src); err != nil {
			return
		}
		var v any
		if yaml.Unmarshal(src, &v) != nil {
			t.Fatalf("ParsePolicy accepted YAML that does not decode: %q", src)
		}
		j, err := jsonRoundTrip(v)
		if err != nil {
			return // not JSON data (YAML-only values); the schema cannot judge it
		}
		if err := s.Validate(j); err != nil {
			t.Errorf("ParsePolicy accepts what the schema refuses: %q: %v", src, err)
		}
	})
}
