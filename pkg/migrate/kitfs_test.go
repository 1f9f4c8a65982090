package migrate

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

const workloadSpec = "schemaVersion: \"2\"\nkind: sandbox\nname: w\nsandbox:\n  image: alpine:3.20\n"

func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// TestReadsOnlyInsideTheKit: a symbolic link that leaves the kit is
// refused with an error naming the link, wherever the kit has it; FIFOs
// and devices are refused unopened; each file and the kit as a whole are
// bounded. The outside file must never reach the output.
func TestReadsOnlyInsideTheKit(t *testing.T) {
	dockerfile := workloadSpec + "  build:\n    dockerfile: Dockerfile\n"
	copying := &fstest.MapFile{Data: []byte("FROM alpine:3.20\nCOPY scripts/ /opt/kit/\n")}
	big := make([]byte, 7<<20)
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantErr error
		naming  string // the error names this kit path
	}{
		{name: "home link to /etc/passwd", files: fstest.MapFS{"kit/files/home/passwd-link": link("/etc/passwd")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files/home/passwd-link"},
		{name: "home link climbing out", files: fstest.MapFS{"kit/files/home/x": link("../../../outside/secret")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files/home/x"},
		{name: "home link to /dev/zero", files: fstest.MapFS{"kit/files/home/zero": link("/dev/zero")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files/home/zero"},
		{name: "workspace link outside", files: fstest.MapFS{"kit/files/workspace/host": link("/etc/hostname")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files/workspace/host"},
		{name: "a link chain leaving the kit", files: fstest.MapFS{"kit/files/home/a": link("b"), "kit/files/home/b": link("/etc/shadow")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files/home/b"},
		{name: "files itself a link outside", files: fstest.MapFS{"kit/files": link("/etc")},
			wantErr: spec.ErrOutsideKit, naming: "kit/files"},
		{name: "spec.yaml a link outside", files: fstest.MapFS{"kit/spec.yaml": link("../other/spec.yaml"), "other/spec.yaml": {Data: []byte(workloadSpec)}},
			wantErr: spec.ErrOutsideKit, naming: "kit/spec.yaml"},
		{name: "Dockerfile a link outside", files: fstest.MapFS{"kit/spec.yaml": {Data: []byte(dockerfile)}, "kit/Dockerfile": link("/etc/hostname")},
			wantErr: spec.ErrOutsideKit, naming: "kit/Dockerfile"},
		{name: "COPY source a link outside", files: fstest.MapFS{"kit/spec.yaml": {Data: []byte(dockerfile)}, "kit/Dockerfile": copying,
			"kit/scripts/run.sh": link("/etc/shadow")}, wantErr: spec.ErrOutsideKit, naming: "kit/scripts/run.sh"},
		{name: "LICENSE a link outside", files: fstest.MapFS{"kit/LICENSE": link("/usr/share/common-licenses/GPL-3")},
			wantErr: spec.ErrOutsideKit, naming: "kit/LICENSE"},
		{name: "FIFO in files/home", files: fstest.MapFS{"kit/files/home/pipe": {Mode: fs.ModeNamedPipe}},
			wantErr: spec.ErrNotRegular, naming: "kit/files/home/pipe"},
		{name: "device in files/home", files: fstest.MapFS{"kit/files/home/zero": {Mode: fs.ModeDevice | fs.ModeCharDevice}},
			wantErr: spec.ErrNotRegular, naming: "kit/files/home/zero"},
		{name: "FIFO as spec.yaml", files: fstest.MapFS{"kit/spec.yaml": {Mode: fs.ModeNamedPipe}},
			wantErr: spec.ErrNotRegular, naming: "kit/spec.yaml"},
		{name: "FIFO as the Dockerfile", files: fstest.MapFS{"kit/spec.yaml": {Data: []byte(dockerfile)}, "kit/Dockerfile": {Mode: fs.ModeNamedPipe}},
			wantErr: spec.ErrNotRegular, naming: "kit/Dockerfile"},
		{name: "FIFO as testdata/tck.yaml", files: fstest.MapFS{"kit/testdata/tck.yaml": {Mode: fs.ModeNamedPipe}},
			wantErr: spec.ErrNotRegular, naming: "kit/testdata/tck.yaml"},
		{name: "a file over the limit", files: fstest.MapFS{"kit/files/home/big": {Data: make([]byte, maxFileBytes+1)}},
			wantErr: spec.ErrFileTooLarge, naming: "kit/files/home/big"},
		{name: "files over the total", files: func() fstest.MapFS {
			m := fstest.MapFS{}
			for i := range 10 {
				m["kit/files/home/f"+string(rune('0'+i))] = &fstest.MapFile{Data: big}
			}
			return m
		}(), wantErr: ErrKitTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"kit/spec.yaml": {Data: []byte(workloadSpec)}}
			for k, v := range tt.files {
				fsys[k] = v
			}
			res, err := Migrate(context.Background(), fsys, "kit")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v (result %v)", err, tt.wantErr, res != nil)
			}
			if tt.naming != "" && !strings.Contains(err.Error(), tt.naming) {
				t.Errorf("the error does not name %s: %v", tt.naming, err)
			}
			var le *LinkError
			if errors.Is(tt.wantErr, spec.ErrOutsideKit) && !errors.As(err, &le) {
				t.Errorf("err = %v, want a *LinkError", err)
			}
		})
	}
}

// TestInKitLinksCarriedAsLinks: links that stay in the kit are followed
// and carried as links, never dereferenced into files.
func TestInKitLinksCarriedAsLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"kit/spec.yaml":            {Data: []byte(workloadSpec)},
		"kit/files/home/.bashrc":   {Data: []byte("export A=1\n"), Mode: 0o644},
		"kit/files/home/.profile":  link(".bashrc"),
		"kit/files/home/bin/run":   {Data: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755},
		"kit/files/home/bin/again": link("../bin/run"),
		"kit/files/home/dangling":  link("../../Dockerfile.old"),
	}
	res, err := Migrate(context.Background(), fsys, "kit")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]File{}
	for _, f := range res.CarriedFiles {
		got[f.Name] = f
	}
	if f := got["files/home/.profile"]; f.Link != ".bashrc" || f.Data != nil {
		t.Errorf(".profile = %+v, want a link to .bashrc", f)
	}
	if f := got["files/home/bin/again"]; f.Link != "../bin/run" {
		t.Errorf("bin/again = %+v, want a link to ../bin/run", f)
	}
	if f := got["files/home/bin/run"]; f.Mode != 0o755 || string(f.Data) != "#!/bin/sh\necho hi\n" {
		t.Errorf("bin/run = %+v, want mode 0755 and its content", f)
	}
	if !slices.ContainsFunc(res.Notes, func(n Note) bool { return n.Code == "carried-link" && strings.HasSuffix(n.Pos.File, "dangling") }) {
		t.Errorf("no carried-link action for a link to a file not carried: %v", res.Notes)
	}
}

// TestStopsWithContext: a cancelled context stops the migration before it
// reads anything.
func TestStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Migrate(ctx, fstest.MapFS{"kit/spec.yaml": {Data: []byte(workloadSpec)}}, "kit")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestRecipeSourcesOutside: every COPY or ADD source of the v2 Dockerfile
// that names a path outside the kit is an action note (the v3 build
// context is the kit directory, which a build never leaves); sources in
// the kit, URLs and other stages are not.
func TestRecipeSourcesOutside(t *testing.T) {
	dockerfile := "FROM alpine:3.20\n" +
		"COPY ../outside/conf /etc/conf\n" +
		"COPY /etc/hostname /etc/name\n" +
		"ADD ../outside /opt/outside\n" +
		"COPY [\"../json/form\", \"/opt/json\"]\n" +
		"COPY --chmod=0755 \\\n  ../continued /opt/continued\n" +
		"COPY scripts/run.sh /opt/run.sh\n" +
		"ADD https://example.org/tool.tgz /opt/\n" +
		"COPY --from=alpine:3.20 /etc/os-release /etc/os-release\n"
	src := workloadSpec + "  build:\n    dockerfile: Dockerfile\n"
	res := migrateSpec(t, src, "Dockerfile", dockerfile, "scripts/run.sh", "echo hi\n")
	var lines []int
	for _, n := range res.Notes {
		if n.Code == "recipe-source-outside" && n.Action {
			lines = append(lines, n.Pos.Line)
		}
	}
	if want := []int{2, 3, 4, 5, 6}; !slices.Equal(lines, want) {
		t.Errorf("recipe-source-outside actions on lines %v, want %v; notes %v", lines, want, res.Notes)
	}
	if !slices.Contains(res.Carried, "scripts/run.sh") {
		t.Errorf("carried %v, want scripts/run.sh", res.Carried)
	}
	if r := res.File("w.dockerfile"); r == nil || !strings.Contains(string(r.Data), CommentMarker+" recipe-source-outside") {
		t.Errorf("the recipe carries no comment for the outside sources")
	}
}

// TestCarriedOnce: a file both under files/home and named by a COPY of the
// v2 Dockerfile is carried once.
func TestCarriedOnce(t *testing.T) {
	src := workloadSpec + "  build:\n    dockerfile: Dockerfile\n"
	res := migrateSpec(t, src, "Dockerfile", "FROM alpine:3.20\nCOPY files/home/bin/start.sh /usr/local/bin/start\nCOPY files/ /opt/files/\n",
		"files/home/bin/start.sh", "#!/bin/sh\n")
	seen := map[string]int{}
	for _, f := range res.CarriedFiles {
		seen[f.Name]++
	}
	for name, n := range seen {
		if n > 1 {
			t.Errorf("%s carried %d times", name, n)
		}
	}
	if seen["files/home/bin/start.sh"] != 1 {
		t.Errorf("carried %v, want files/home/bin/start.sh once", seen)
	}
}

// TestDanglingLinks: a link in the kit to nothing is carried with an
// action note (the image would get a link to nothing), and a COPY source
// that is one is not an error.
func TestDanglingLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"kit/spec.yaml":           {Data: []byte(workloadSpec + "  build:\n    dockerfile: Dockerfile\n")},
		"kit/Dockerfile":          {Data: []byte("FROM alpine:3.20\nCOPY tool /usr/local/bin/tool\n")},
		"kit/tool":                link("build/tool"),
		"kit/files/home/.gitconf": link("missing/gitconfig"),
	}
	res, err := Migrate(context.Background(), fsys, "kit")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n Note) bool {
		return n.Code == "carried-link" && n.Action && strings.HasSuffix(n.Pos.File, ".gitconf")
	}) {
		t.Errorf("no carried-link action for the dangling link: %v", res.Notes)
	}
}
