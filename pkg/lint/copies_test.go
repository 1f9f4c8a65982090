package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestCopiedScript maps the path a hook runs to the kit file the recipe
// copies there.
func TestCopiedScript(t *testing.T) {
	const image = "example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	const from = "FROM " + image + "\n"
	files := map[string]string{
		"setup.sh":         "#!/bin/sh\necho setup\n",
		"scripts/start.sh": "#!/usr/bin/env bash\necho start\n",
		"scripts/run":      "#!/bin/sh\necho run\n",
		"scripts/tool.py":  "#!/usr/bin/env python3\nprint(1)\n",
		"scripts/plain":    "echo plain\n",
		"other.sh":         "echo other\n",
	}
	tests := []struct {
		name, recipe, target string
		shell                bool
		wantVia, wantSrc     string // "" for no script
	}{
		{name: "file to file", recipe: from + "COPY setup.sh /opt/kit/setup.sh\n", target: "/opt/kit/setup.sh", shell: true,
			wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "file into a directory", recipe: from + "COPY --chmod=0755 setup.sh other.sh /opt/kit/\n", target: "/opt/kit/other.sh", shell: true,
			wantVia: "/opt/kit/other.sh", wantSrc: "other.sh"},
		{name: "file to a name without a slash is not a directory", recipe: from + "COPY setup.sh /opt/kit\n", target: "/opt/kit/setup.sh", shell: true},
		{name: "directory contents", recipe: from + "ADD --chmod=755 scripts /opt/kit/bin\n", target: "/opt/kit/bin/start.sh",
			wantVia: "/opt/kit/bin/start.sh", wantSrc: "scripts/start.sh"},
		{name: "the whole context", recipe: from + "COPY . /opt/kit/\n", target: "/opt/kit/scripts/run",
			wantVia: "/opt/kit/scripts/run", wantSrc: "scripts/run"},
		{name: "a glob", recipe: from + "COPY scripts/*.sh /opt/kit/\n", target: "/opt/kit/start.sh",
			wantVia: "/opt/kit/start.sh", wantSrc: "scripts/start.sh"},
		{name: "WORKDIR-relative destination and target", recipe: from + "WORKDIR /opt\nWORKDIR kit\nCOPY setup.sh ./\n", target: "./setup.sh", shell: true,
			wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "relative destination under an unknown WORKDIR", recipe: from + "COPY setup.sh kit/\n", target: "/kit/setup.sh", shell: true},
		{name: "a bare name is looked up in PATH", recipe: from + "COPY scripts/run /usr/local/bin/\n", target: "run",
			wantVia: "/usr/local/bin/run", wantSrc: "scripts/run"},
		{name: "absolute sources are relative to the context", recipe: from + "COPY /setup.sh /opt/kit/setup.sh\n", target: "/opt/kit/setup.sh", shell: true,
			wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "a later copy wins", recipe: from + "COPY setup.sh /opt/kit/x.sh\nCOPY other.sh /opt/kit/x.sh\n", target: "/opt/kit/x.sh", shell: true,
			wantVia: "/opt/kit/x.sh", wantSrc: "other.sh"},
		{name: "a stage the image is built from", recipe: "FROM " + image + " AS base\nCOPY setup.sh /opt/kit/\nFROM base\n", target: "/opt/kit/setup.sh", shell: true,
			wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "a stage the image is not built from", recipe: "FROM " + image + " AS build\nCOPY setup.sh /opt/kit/\n" + from, target: "/opt/kit/setup.sh", shell: true},
		{name: "copied from another stage", recipe: "FROM " + image + " AS build\nCOPY setup.sh /opt/kit/\n" + from + "COPY --from=build /opt/kit/ /opt/kit/\n",
			target: "/opt/kit/setup.sh", shell: true, wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "copied from another stage by index, to another directory", recipe: "FROM " + image + "\nCOPY setup.sh /src/\n" + from + "COPY --from=0 /src/setup.sh /opt/kit/\n",
			target: "/opt/kit/setup.sh", shell: true, wantVia: "/opt/kit/setup.sh", wantSrc: "setup.sh"},
		{name: "copied from another image", recipe: from + "COPY --from=example.org/tools:1 /opt/kit/ /opt/kit/\n",
			target: "/opt/kit/setup.sh", shell: true},
		{name: "a URL", recipe: from + "ADD https://example.org/setup.sh /opt/kit/\n", target: "/opt/kit/setup.sh", shell: true},
		{name: "a variable", recipe: from + "ARG D=/opt/kit\nCOPY setup.sh $D/\n", target: "/opt/kit/setup.sh", shell: true},
		{name: "a here-document", recipe: "# syntax=docker/dockerfile:1\n" + from + "COPY <<EOF /opt/kit/setup.sh\necho hi\nEOF\n", target: "/opt/kit/setup.sh", shell: true},
		{name: "run directly, a shell #! line", recipe: from + "COPY scripts/ /opt/kit/\n", target: "/opt/kit/run",
			wantVia: "/opt/kit/run", wantSrc: "scripts/run"},
		{name: "run directly, another interpreter", recipe: from + "COPY scripts/ /opt/kit/\n", target: "/opt/kit/tool.py"},
		{name: "run directly, no #! line nor .sh", recipe: from + "COPY scripts/ /opt/kit/\n", target: "/opt/kit/plain"},
		{name: "read by a shell, no #! line", recipe: from + "COPY scripts/ /opt/kit/\n", target: "/opt/kit/plain", shell: true,
			wantVia: "/opt/kit/plain", wantSrc: "scripts/plain"},
		{name: "not in the kit", recipe: from + "COPY scripts/ /opt/kit/\n", target: "/opt/kit/missing.sh", shell: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			all := map[string]string{"kit.yaml": spec.SyntaxLine + "\nschemaVersion: \"3\"\nkind: mixin\n", "kit.dockerfile": tt.recipe}
			for name, body := range files {
				all[name] = body
			}
			for name, body := range all {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			k, err := spec.LoadPath(dir)
			if err != nil {
				t.Fatal(err)
			}
			in := NewInput(k)
			s, via, src := in.copiedScript(in.image(), tt.target, tt.shell)
			if diff := cmp.Diff([2]string{tt.wantVia, tt.wantSrc}, [2]string{via, src}); diff != "" {
				t.Errorf("copiedScript(%q) (-want +got):\n%s", tt.target, diff)
			}
			if (s != nil) != (tt.wantSrc != "") {
				t.Errorf("script = %v, want one: %v", s, tt.wantSrc != "")
			}
			if s != nil {
				if diff := cmp.Diff(files[tt.wantSrc], s.Source); diff != "" {
					t.Errorf("script source (-want +got):\n%s", diff)
				}
				if got, want := s.Pos(s.File.Stmts[0].Pos()).File, k.FilePath(tt.wantSrc); got != want {
					t.Errorf("positions are in %q, want %q", got, want)
				}
			}
		})
	}
}

// TestStageAt gives a RUN step the copies of its own stage made before it.
func TestStageAt(t *testing.T) {
	recipe := "FROM example.org/base:1 AS build\nRUN sh /tmp/early.sh\nCOPY a.sh /tmp/\nWORKDIR /src\nRUN sh /tmp/a.sh\n" +
		"FROM build AS test\nCOPY b.sh ./\nRUN sh b.sh\nFROM example.org/base:1\nCOPY c.sh /opt/\n"
	d := NewInput(mustParse(t, recipe)).Recipe
	if d == nil {
		t.Fatal("the recipe does not parse")
	}
	var runs []*parser.Node
	for _, n := range d.Instructions() {
		if strings.EqualFold(n.Value, "run") {
			runs = append(runs, n)
		}
	}
	got := map[string]buildStage{}
	for i, n := range append(runs, nil) {
		got[fmt.Sprint(i)] = d.stageAt(n)
	}
	want := map[string]buildStage{
		"0": {},
		"1": {workdir: "/src", copies: []recipeCopy{{srcs: []string{"a.sh"}, dest: "/tmp", intoDir: true}}},
		"2": {workdir: "/src", copies: []recipeCopy{{srcs: []string{"a.sh"}, dest: "/tmp", intoDir: true}, {srcs: []string{"b.sh"}, dest: "/src", intoDir: true}}},
		"3": {copies: []recipeCopy{{srcs: []string{"c.sh"}, dest: "/opt", intoDir: true}}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(buildStage{}, recipeCopy{})); diff != "" {
		t.Errorf("stageAt (-want +got):\n%s", diff)
	}
}

// mustParse parses a kit whose inline build: recipe is recipe.
func mustParse(t *testing.T, recipe string) *spec.Kit {
	t.Helper()
	src := spec.SyntaxLine + "\nschemaVersion: \"3\"\nkind: mixin\nbuild: |\n"
	for _, l := range strings.Split(strings.TrimSuffix(recipe, "\n"), "\n") {
		src += "  " + l + "\n"
	}
	k, err := spec.Parse("kit.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestCdTarget follows a script's cd commands from a working directory.
func TestCdTarget(t *testing.T) {
	tests := []struct {
		src, wd, want string
		isCd          bool
	}{
		{src: "cd /opt/kit", wd: "/", want: "/opt/kit", isCd: true},
		{src: "cd -P bin", wd: "/opt/kit", want: "/opt/kit/bin", isCd: true},
		{src: "cd ..", wd: "/opt/kit", want: "/opt", isCd: true},
		{src: "cd bin", wd: "", want: "", isCd: true},
		{src: "cd", wd: "/opt", want: "", isCd: true},
		{src: "cd -", wd: "/opt", want: "", isCd: true},
		{src: "cd ~/src", wd: "/opt", want: "", isCd: true},
		{src: `cd "$DIR"`, wd: "/opt", want: "", isCd: true},
		{src: "echo cd /x", wd: "/opt", want: "/opt"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, isCd := cdTarget(tt.wd, script(t, tt.src).Commands()[0])
			if diff := cmp.Diff([2]any{tt.want, tt.isCd}, [2]any{got, isCd}); diff != "" {
				t.Errorf("cdTarget (-want +got):\n%s", diff)
			}
		})
	}
}
