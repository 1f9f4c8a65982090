package lint_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/schemas"
)

// configCases are .kitsmith.yaml files, each with the error LoadConfig
// gives (a fragment, "" for none): kitsmith's own words, at the line and
// column of the offending key or value.
var configCases = []struct {
	name, src, err string
}{
	{"every key", "enable: [unsized-volume]\ndisable: [port-trust-boundary]\nseverity:\n  unsized-volume: warning\nignore: [\"examples/**\"]\negress:\n  registries:\n    pypi: [pypi.example.org, \"files.example.org:8443\"]\n", ""},
	{"empty", "", ""},
	{"only a comment", "# nothing configured\n", ""},
	{"misspelt key", "disabel: [port-trust-boundary]\n", `:1:1: unknown key "disabel" (did you mean disable?); the keys are disable, egress, enable, ignore, severity`},
	{"a single rule instead of a list", "disable: port-trust-boundary\n", ":1:10: disable must be a list of rule IDs, or all, as in disable: [port-trust-boundary], not a single value; write disable: [port-trust-boundary]"},
	{"a number in a list", "enable: [unsized-volume, 3]\n", ":1:26: enable[1] must be a string"},
	{"severity as a list", "severity: [unsized-volume]\n", ":1:11: severity must be a mapping of rule IDs to error, warning or info"},
	{"misspelt severity", "severity:\n  unsized-volume: warn1ng\n", `:2:19: severity.unsized-volume is "warn1ng"; use error, warning or info (did you mean warning?)`},
	{"misspelt egress key", "egress:\n  registry:\n    pypi: [pypi.example.org]\n", `:2:3: unknown key "registry" in egress (did you mean registries?); the keys are registries`},
	{"ignore as a mapping", "ignore: {examples: true}\n", ":1:9: ignore must be a list of kit path patterns"},
	{"unknown family", "egress:\n  registries:\n    pipy: [pypi.example.org]\n", `:3:5: egress.registries: unknown tool family "pipy"`},
	{"a URL for a host", "egress:\n  registries:\n    pypi: [\"https://pypi.example.org/simple\"]\n", `:3:12: egress.registries.pypi[0]: "https://pypi.example.org/simple" is not a host`},
	{"not a mapping", "- disable\n", ":1:1: the configuration must be a mapping of disable, egress, enable, ignore, severity"},
	{"tab indentation", "disable:\n\t- all\n", ":2:1: invalid YAML: tabs cannot indent YAML; use spaces"},
}

// TestLoadConfigMessages: LoadConfig's errors are kitsmith's, with the
// file, line and column, the allowed keys with a did-you-mean, and the
// expected shape; never yaml.v3's Go type names.
func TestLoadConfigMessages(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "kitsmith.yaml")
			writeFiles(t, dir, map[string]string{"kitsmith.yaml": tc.src})
			_, err := lint.LoadConfig(p)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("LoadConfig: %v", err)
			case tc.err == "":
				return
			case err == nil:
				t.Fatalf("LoadConfig succeeded, want %q", tc.err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, p+":") || !strings.Contains(msg, tc.err) {
				t.Errorf("error %q does not start with %s: and contain %q", msg, p, tc.err)
			}
			for _, leak := range []string{"lint.Config", "[]string", "!!str", "unmarshal", "not found in type"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error %q leaks %q", msg, leak)
				}
			}
		})
	}
}

// TestConfigSchema: schemas/config.schema.json accepts every configuration
// LoadConfig accepts and refuses every one it refuses, except the host
// and YAML syntax checks only kitsmith makes.
func TestConfigSchema(t *testing.T) {
	raw, err := fs.ReadFile(schemas.FS(), schemas.Config)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemas.BaseURL+schemas.Config, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemas.BaseURL + schemas.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range configCases {
		if tc.name == "tab indentation" {
			continue // not YAML at all
		}
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := yaml.Unmarshal([]byte(tc.src), &v); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(inst)
			if (err == nil) != (tc.err == "") {
				t.Errorf("schema says %v; LoadConfig says %q", err, tc.err)
			}
		})
	}
}
