package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

const minimalMixin = SyntaxLine + "\nschemaVersion: \"3\"\nkind: mixin\n"

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fsys
}

// ks/locate: SPEC-v3 §3 and the directory rules.
func TestLocate(t *testing.T) {
	commentDockerfile := "# syntax=docker/dockerfile:1\n# kit:\n#   schemaVersion: \"3\"\n#   kind: mixin\nFROM scratch\n"
	tests := []struct {
		name    string
		files   map[string]string
		want    string
		wantErr error
		errHas  string
	}{
		{name: "dirname.yaml wins over other candidates",
			files: map[string]string{"gh/gh.yaml": "kind: mixin\n", "gh/other.yaml": minimalMixin},
			want:  "gh/gh.yaml"},
		{name: "dirname.yml",
			files: map[string]string{"gh/gh.yml": minimalMixin},
			want:  "gh/gh.yml"},
		{name: "the single yaml with the syntax line",
			files: map[string]string{"gh/kit.yaml": minimalMixin, "gh/values.yaml": "a: 1\n", "gh/README.md": "x"},
			want:  "gh/kit.yaml"},
		{name: "the runtime-kit spelling of the syntax line",
			files: map[string]string{"gh/kit.yml": RuntimeSyntaxLine + "\nkind: mixin\n"},
			want:  "gh/kit.yml"},
		{name: "a Dockerfile with a kit block when no yaml qualifies",
			files: map[string]string{"gh/Dockerfile": commentDockerfile, "gh/values.yaml": "a: 1\n", "gh/other.dockerfile": "FROM scratch\n"},
			want:  "gh/Dockerfile"},
		{name: "several yaml candidates",
			files:   map[string]string{"gh/a.yaml": minimalMixin, "gh/b.yaml": minimalMixin},
			wantErr: ErrAmbiguousKit, errHas: "gh/a.yaml, gh/b.yaml; name the descriptor file explicitly or rename one after the directory (gh.yaml)"},
		{name: "several Dockerfiles",
			files:   map[string]string{"gh/Dockerfile": commentDockerfile, "gh/gh.dockerfile": commentDockerfile},
			wantErr: ErrAmbiguousKit, errHas: "gh/Dockerfile, gh/gh.dockerfile"},
		{name: "nothing",
			files:   map[string]string{"gh/values.yaml": "a: 1\n", "gh/Dockerfile": "FROM scratch\n"},
			wantErr: ErrNoKit, errHas: "expected gh.yaml"},
	}
	for _, tc := range tests {
		t.Run("ks/locate "+tc.name, func(t *testing.T) {
			got, err := Locate(mapFS(tc.files), "gh", "gh")
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("Locate error = %v, want %v containing %q", err, tc.wantErr, tc.errHas)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Locate = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The four authoring forms (SPEC-v3 §3) and what Load makes of them.
func TestLoadForms(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		path       string
		wantForm   Form
		wantStem   string
		wantRecipe string // recipe Name, "" for inline or none
		wantText   string // recipe text
		wantFiles  []string
	}{
		{name: "companion pair", path: "gh",
			files: map[string]string{
				"gh/gh.yaml":       minimalMixin + "capabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: ./docs/ctx.md}\n",
				"gh/gh.dockerfile": "FROM scratch\n", "gh/docs/ctx.md": "use gh\n"},
			wantForm: FormCompanion, wantStem: "gh", wantRecipe: "gh/gh.dockerfile", wantText: "FROM scratch\n", wantFiles: []string{"docs/ctx.md"}},
		{name: "explicit dockerfile", path: "gh/gh.yaml",
			files:    map[string]string{"gh/gh.yaml": minimalMixin + "dockerfile: build/Dockerfile\n", "gh/build/Dockerfile": "FROM alpine\n"},
			wantForm: FormCompanion, wantStem: "gh", wantRecipe: "gh/build/Dockerfile", wantText: "FROM alpine\n"},
		{name: "declaration-only", path: "gh",
			files:    map[string]string{"gh/gh.yaml": minimalMixin},
			wantForm: FormCompanion, wantStem: "gh"},
		{name: "inline build", path: "motd",
			files:    map[string]string{"motd/motd.yaml": minimalMixin + "build: |\n  FROM scratch\n  COPY x /\n"},
			wantForm: FormInline, wantStem: "motd", wantText: "FROM scratch\nCOPY x /\n"},
		{name: "comment descriptor", path: "hello/hello.dockerfile",
			files:    map[string]string{"hello/hello.dockerfile": "# syntax=docker/sandbox-kit:3\n# kit:\n#   schemaVersion: \"3\"\n#   kind: workload\nFROM scratch\nCMD [\"/hello\"]\n"},
			wantForm: FormComment, wantStem: "hello", wantRecipe: "hello.dockerfile",
			wantText: "# (syntax directive consumed by the kit frontend)\n# kit:\n#   schemaVersion: \"3\"\n#   kind: workload\nFROM scratch\nCMD [\"/hello\"]\n"},
		{name: "set", path: "team",
			files:    map[string]string{"team/team.yaml": SyntaxLine + "\nschemaVersion: \"3\"\nkind: set\nkits: [{ref: docker.io/example/a:1}]\n"},
			wantForm: FormSet, wantStem: "team"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Load(mapFS(tc.files), tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if r := k.Validate(); !r.OK() {
				t.Fatalf("Validate: %v", r.Err())
			}
			var gotRecipe, gotText string
			if k.Recipe != nil {
				gotRecipe, gotText = k.Recipe.Name, string(k.Recipe.Text)
			}
			var gotFiles []string
			for name := range k.Files {
				gotFiles = append(gotFiles, name)
			}
			got := []any{k.Form, k.Stem, gotRecipe, gotText, gotFiles}
			want := []any{tc.wantForm, tc.wantStem, tc.wantRecipe, tc.wantText, tc.wantFiles}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("form, stem, recipe, text, files (-want +got):\n%s", diff)
			}
		})
	}
}

// SPEC-v3 §3.3: comment descriptors, positions mapped back to the file.
func TestLoadCommentDescriptor(t *testing.T) {
	src := "# syntax=docker/dockerfile:1\n" +
		"# kit:\n" +
		"#   schemaVersion: \"3\"\n" +
		"#   kind: mixin\n" +
		"#   build: FROM scratch\n" +
		"#\n" +
		"#   capabilities:\n" +
		"#     - type: com.docker.sandbox/port@1\n" +
		"#       config: {container: 0}\n" +
		"FROM scratch\n"
	k, err := Load(mapFS(map[string]string{"k/Dockerfile": src}), "k")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := diagnostics(k.Validate(), nil)
	want := []diagnostic{
		{Code: "comment-descriptor-no-content", Ref: "SPEC-v3 §3.3/comment-descriptor-no-content", Field: "build", Pos: "5:5"},
		{Code: "port", Field: "capabilities[0].config.container", Pos: "9:29"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if _, err := Load(mapFS(map[string]string{"k/Dockerfile": "FROM scratch\n"}), "k/Dockerfile"); !errors.Is(err, ErrNoKit) {
		t.Errorf("a Dockerfile without a kit block: err = %v, want ErrNoKit", err)
	}
}

// badInput is one case of TestLoadBadInput.
type badInput struct {
	name  string
	files map[string]string
	links map[string]string // name → target
	big   bool              // add a 50 MB descriptor
	want  diagnostic
	msg   string // a fragment the message must hold; "" for any
}

// Bad input: each case gets exactly one clear, positioned error, in
// bounded time and memory, and never a panic.
func TestLoadBadInput(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range badInputs(secret) {
		t.Run(tc.name, func(t *testing.T) { runBadInput(t, tc) })
	}
}

// badInputs lists the cases; secret is a file outside every kit.
func badInputs(secret string) []badInput {
	bomb := minimalMixin + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		bomb += "a" + itoa(i) + ": &a" + itoa(i) + " [" + strings.TrimSuffix(strings.Repeat("*a"+itoa(i-1)+", ", 9), ", ") + "]\n"
	}
	return []badInput{
		{name: "malformed YAML", files: map[string]string{"k.yaml": minimalMixin + "provides: [gh\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "4:1"}},
		{name: "tab indentation", files: map[string]string{"k.yaml": minimalMixin + "capabilities:\n\t- type: com.docker.sandbox/privileged@1\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "5:1"}, msg: "tabs cannot indent YAML; use spaces"},
		{name: "tab after the indentation spaces", files: map[string]string{"k.yaml": minimalMixin + "capabilities:\n  - type: com.docker.sandbox/volume@1\n    config:\n  \tpath: /x\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "7:3"}, msg: "tabs cannot indent YAML; use spaces"},
		{name: "a key indented to no level", files: map[string]string{"k.yaml": minimalMixin + "capabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config:\n      install:\n        allow: [a.org]\n     runtime:\n        allow: [b.org]\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "9:6"}, msg: "the indentation of this line matches no key or list above it"},
		{name: "a tab inside a quoted value is text", files: map[string]string{"k.yaml": minimalMixin + "provides: [\"a\tb\"\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "4:1"}, msg: "did not find expected ',' or ']'"},
		{name: "alias bomb", files: map[string]string{"k.yaml": bomb},
			want: diagnostic{Code: "excessive-aliasing", Pos: "7:30"}},
		{name: "deeply nested", files: map[string]string{"k.yaml": minimalMixin + "description: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"},
			want: diagnostic{Code: "too-deep", Pos: "4:78"}},
		{name: "nested beyond the YAML parser's limit", files: map[string]string{"k.yaml": minimalMixin + "description: " + strings.Repeat("{a: ", 12000) + "1" + strings.Repeat("}", 12000) + "\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "4:1"}},
		{name: "50 MB descriptor", big: true,
			want: diagnostic{Code: "size-budget", Pos: "1:1"}},
		{name: "binary garbage", files: map[string]string{"k.yaml": "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe"},
			want: diagnostic{Code: "not-utf8", Pos: "1:11"}},
		{name: "non-UTF-8 text", files: map[string]string{"k.yaml": minimalMixin + "displayName: caf\xe9\n"},
			want: diagnostic{Code: "not-utf8", Pos: "4:17"}},
		{name: "NUL byte", files: map[string]string{"k.yaml": minimalMixin + "displayName: a\x00b\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "4:1"}},
		{name: "empty file", files: map[string]string{"k.yaml": ""},
			want: diagnostic{Code: "empty-descriptor", Pos: "1:1"}},
		{name: "two documents", files: map[string]string{"k.yaml": minimalMixin + "---\nkind: mixin\n"},
			want: diagnostic{Code: "yaml-syntax", Pos: "4:1"}},
		{name: "not a mapping", files: map[string]string{"k.yaml": "- kind: mixin\n"},
			want: diagnostic{Code: "wrong-type", Pos: "1:1"}},
		{name: "dockerfile: ../x", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: ../x\n"},
			want: diagnostic{Code: "dockerfile-inside-context", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13"}},
		{name: "absolute dockerfile", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: " + secret + "\n"},
			want: diagnostic{Code: "dockerfile-inside-context", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13"}},
		{name: "dockerfile escaping by a symlink", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: recipe\n"},
			links: map[string]string{"recipe": secret},
			want:  diagnostic{Code: "file-escapes", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13"}},
		{name: "companion escaping by a symlink", files: map[string]string{"k.yaml": minimalMixin},
			links: map[string]string{"k.dockerfile": secret},
			want:  diagnostic{Code: "file-escapes", Ref: "SPEC-v3 §4/dockerfile-inside-context", Pos: "0:0"}},
		{name: "contentFile escaping by a symlink",
			files: map[string]string{"k.yaml": minimalMixin + "capabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: ctx.md}\n"},
			links: map[string]string{"ctx.md": secret},
			want:  diagnostic{Code: "file-escapes", Field: "capabilities[0].config.contentFile", Pos: "6:27"}},
		{name: "contentFile ../x",
			files: map[string]string{"k.yaml": minimalMixin + "capabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: ../ctx.md}\n"},
			want:  diagnostic{Code: "content-file-inside-context", Field: "capabilities[0].config.contentFile", Pos: "6:27"}},
		{name: "missing named recipe", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: k.Dockerfile\n"},
			want: diagnostic{Code: "file-missing", Field: "dockerfile", Pos: "4:13"}},
		{name: "named recipe is a directory", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: sub\n", "sub/x": ""},
			want: diagnostic{Code: "file-escapes", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13"}},
	}
}

func runBadInput(t *testing.T, tc badInput) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "k")
	for name, body := range tc.files {
		writeFile(t, filepath.Join(dir, name), []byte(body))
	}
	for name, target := range tc.links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	if tc.big {
		writeBig(t, filepath.Join(dir, "k.yaml"), 50<<20)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	k, err := LoadPath(dir)
	if err != nil {
		t.Fatalf("LoadPath: %v", err)
	}
	r := k.Validate()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	got, msgs := diagnostics(r, nil)
	for i := range got {
		got[i].Fix = ""
	}
	if tc.msg != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.msg)) {
		t.Errorf("messages %q, want one holding %q", msgs, tc.msg)
	}
	if diff := cmp.Diff([]diagnostic{tc.want}, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\nmessages: %q", diff, msgs)
	}
	if elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MB", alloc>>20)
	}
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeBig writes a descriptor of size bytes without holding it in memory.
func writeBig(t *testing.T, name string, size int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := []byte(strings.Repeat("# padding padding padding padding padding padding padding padding\n", 1024))
	if _, err := f.WriteString(minimalMixin); err != nil {
		t.Fatal(err)
	}
	for n := len(minimalMixin); n < size; n += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// A descriptor read through a symlink that escapes is an I/O error of
// LoadPath, not a panic; fs.FS implementations without os.Root still
// refuse .. and absolute names in Load.
func TestLoadEscapingDescriptor(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "kit.yaml")
	writeFile(t, outside, []byte(minimalMixin))
	dir := filepath.Join(t.TempDir(), "k")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "k.yaml")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	if _, err := LoadPath(dir); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("LoadPath through an escaping symlink: err = %v, want an escape error", err)
	}
	if _, err := Load(mapFS(map[string]string{"k/k.yaml": minimalMixin}), "../k"); err == nil || !errors.Is(err, fs.ErrInvalid) && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(../k): err = %v, want an invalid-path error", err)
	}
}
