package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docKitFiles extracts the files docs/authoring.md shows, each a fenced
// block right after a "<!-- kit file: DIR/NAME -->" line.
func docKitFiles(t *testing.T, doc string) map[string]string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- kit file: (\\S+) -->\n```[a-z]*\n(.*?)\n```\n")
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = m[2] + "\n"
	}
	return out
}

// TestAuthoringDoc writes every example of docs/authoring.md to disk and
// checks that each kit validates and lints without a single finding, that
// the four authoring forms and a proxy-managed credential are among them,
// and that every capability type kitsmith knows links to its specification.
func TestAuthoringDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "authoring.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	files := docKitFiles(t, doc)
	dir := t.TempDir()
	kits := map[string]bool{}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		kits[strings.Split(name, "/")[0]] = true
	}
	forms := map[string]func(files map[string]string, kit string) bool{
		"companion files": func(f map[string]string, k string) bool { _, ok := f[k+"/"+k+".dockerfile"]; return ok },
		"inline build":    func(f map[string]string, k string) bool { return strings.Contains(f[k+"/"+k+".yaml"], "\nbuild: |") },
		"# kit: block":    func(f map[string]string, k string) bool { return strings.Contains(f[k+"/Dockerfile"], "\n# kit:\n") },
		"set":             func(f map[string]string, k string) bool { return strings.Contains(f[k+"/"+k+".yaml"], "\nkind: set\n") },
		"proxy-managed credential with a network policy": func(f map[string]string, k string) bool {
			y := f[k+"/"+k+".yaml"]
			return strings.Contains(y, "proxyManaged: true") && strings.Contains(y, "network-policy@")
		},
	}
	found := map[string]bool{}
	// Every capability type with a schema is in the table, linked.
	caps, err := filepath.Glob(filepath.Join("..", "..", "schemas", "capabilities", "*", "*.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) < 20 {
		t.Fatalf("%d capability schemas found, want the 21 of schemas/capabilities", len(caps))
	}
	t.Chdir(dir)
	for kit := range kits {
		t.Run(kit, func(t *testing.T) {
			if _, stderr, code := runCLI(t, "validate", kit); code != 0 {
				t.Errorf("validate: exit %d\n%s", code, stderr)
			}
			out, stderr, code := runCLI(t, "lint", "--fail-level", "info", kit)
			if code != 0 || !strings.Contains(out, "1 kit linted: 0 errors, 0 warnings, 0 info") {
				t.Errorf("lint: exit %d\n%s%s", code, out, stderr)
			}
		})
		for form, is := range forms {
			if is(files, kit) {
				found[form] = true
			}
		}
	}
	for form := range forms {
		if !found[form] {
			t.Errorf("docs/authoring.md has no example of %s", form)
		}
	}
	if !strings.Contains(doc, "](https://github.com/docker/sandbox-kit-spec)") {
		t.Error("docs/authoring.md does not link the specification repository")
	}
	var missing []string
	for _, c := range caps {
		typ := strings.TrimSuffix(filepath.Base(c), ".schema.json")
		if typ == "agent-skill@1" { // the schema of one agent-skills@1 entry
			continue
		}
		if !regexp.MustCompile(`\| \[` + "`" + `com\.docker\.sandbox/` + regexp.QuoteMeta(typ) + "`" + `\]\(https://github\.com/docker/sandbox-kit-spec/blob/main/docs/spec/[^)]+\.md\) \|`).MatchString(doc) {
			missing = append(missing, typ)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("capability types without a linked row in docs/authoring.md: %v", missing)
	}
}
