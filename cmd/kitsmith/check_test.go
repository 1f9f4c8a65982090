package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// artifactGolden is where the golden outputs of inspect and check live.
const artifactGolden = "testdata/artifact"

// testKits publishes the test kits the inspect and check goldens read: as
// OCI layouts and archives in a temporary directory and in an in-process
// registry. Paths and the registry address are replaced by $DIR and
// $REGISTRY in outputs, so goldens stay stable.
type testKits struct {
	dir, registry string
}

func newTestKits(t *testing.T) *testKits {
	t.Helper()
	r := &testKits{dir: t.TempDir(), registry: at.Registry(t, true)}
	layouts := map[string]v1.ImageIndex{
		"tool":      at.Mixin(t).Index(t),
		"shell":     at.Workload(t).Index(t),
		"home-trap": homeTrap(t).Index(t),
	}
	for name, idx := range layouts {
		at.WriteLayout(t, filepath.Join(r.dir, name), "1.0.0", idx)
		at.Push(t, r.registry+"/kits/"+name+":1.0.0", idx)
	}
	at.TarLayout(t, filepath.Join(r.dir, "tool"), filepath.Join(r.dir, "tool.tar"))
	at.Push(t, r.registry+"/kits/docker-classic:1.0.0", at.DockerClassic(t))
	return r
}

// homeTrap is a mixin whose COPY --chown=1000:1000 made BuildKit create
// /home owned by the agent.
func homeTrap(t *testing.T) *at.Kit {
	k := at.Mixin(t)
	k.Content[0] = at.Dir("home/", 1000)
	return k
}

// expand replaces $DIR and $REGISTRY in a command line.
func (r *testKits) expand(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.NewReplacer("$DIR", r.dir, "$REGISTRY", r.registry).Replace(a)
	}
	return out
}

// normalize replaces the temporary paths and the registry address.
func (r *testKits) normalize(s string) string {
	return strings.NewReplacer(r.dir, "$DIR", r.registry, "$REGISTRY").Replace(s)
}

// runGolden runs a command and pins its stdout, stderr and exit status.
func (r *testKits) runGolden(t *testing.T, golden string, wantCode int, args ...string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, r.expand(args)...)
	text := r.normalize(stdout)
	if stderr != "" {
		text += "--- stderr\n" + r.normalize(stderr)
	}
	text += "--- exit " + strconv.Itoa(code) + "\n"
	checkGolden(t, filepath.Join(artifactGolden, golden), text)
	if code != wantCode {
		t.Errorf("kitsmith %s exits %d, want %d", strings.Join(args, " "), code, wantCode)
	}
	return stdout
}

func TestCheckGolden(t *testing.T) {
	r := newTestKits(t)
	tests := []struct {
		golden string
		code   int
		args   []string
	}{
		{"check/tool-layout.txt", exitOK, []string{"check", "oci:$DIR/tool"}},
		{"check/tool-layout.json", exitOK, []string{"check", "--format", "json", "oci:$DIR/tool:1.0.0"}},
		{"check/tool-archive.txt", exitOK, []string{"check", "oci-archive:$DIR/tool.tar"}},
		{"check/shell-registry.txt", exitOK, []string{"check", "$REGISTRY/kits/shell:1.0.0"}},
		{"check/home-trap.txt", exitFindings, []string{"check", "oci:$DIR/home-trap"}},
		{"check/home-trap.json", exitFindings, []string{"check", "--format=json", "$REGISTRY/kits/home-trap:1.0.0"}},
		{"check/docker-classic.txt", exitFindings, []string{"check", "$REGISTRY/kits/docker-classic:1.0.0"}},
		{"check/docker-classic.json", exitFindings, []string{"check", "--format", "json", "$REGISTRY/kits/docker-classic:1.0.0"}},
		{"check/list-checks.txt", exitOK, []string{"check", "--list-checks"}},
		{"check/missing-tag.txt", exitUsage, []string{"check", "$REGISTRY/kits/tool:9.9.9"}},
		{"check/missing-layout.txt", exitUsage, []string{"check", "oci:$DIR/nothing"}},
		{"check/not-a-layout.txt", exitUsage, []string{"check", "oci:$DIR"}},
		{"check/bad-format.txt", exitUsage, []string{"check", "--format", "sarif", "oci:$DIR/tool"}},
		{"check/no-ref.txt", exitUsage, []string{"check"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			r.runGolden(t, tt.golden, tt.code, tt.args...)
		})
	}
}

func TestCheckUnreachableRegistry(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, stderr, code := runCLI(t, "check", addr+"/kits/tool:1.0.0")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{addr, "registry unreachable", "hint:", "--insecure-registry"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
}

// TestCheckIntegration pushes a kit the way Docker's default build driver
// does (Docker media types, no annotations) to the real registry the
// repository's scripts start, and asserts that check explains the failure.
// It runs when KITSMITH_INTEGRATION=1 (and then fails rather than skips
// without a registry) or KITSMITH_TEST_REGISTRY is set.
func TestCheckIntegration(t *testing.T) {
	registry := os.Getenv("KITSMITH_TEST_REGISTRY")
	if registry == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is not set: start the services with scripts/services.sh start and eval \"$(scripts/services.sh env)\"")
		}
		t.Skip("integration test: set KITSMITH_INTEGRATION=1 and KITSMITH_TEST_REGISTRY (scripts/services.sh env)")
	}
	registry = strings.TrimPrefix(strings.TrimPrefix(registry, "http://"), "https://")
	ref := registry + "/kitsmith-test/docker-classic:" + strconv.Itoa(os.Getpid())
	at.Push(t, ref, at.DockerClassic(t))

	stdout, stderr, code := runCLI(t, "check", ref)
	if code != exitFindings {
		t.Fatalf("check %s exits %d, want %d\n%s%s", ref, code, exitFindings, stdout, stderr)
	}
	for _, want := range []string{
		"FAIL oci-media-types [index]: the index is a Docker manifest list (application/vnd.docker.distribution.manifest.list.v2+json)",
		"FAIL oci-media-types [linux/amd64]: the image has a Docker v2 manifest",
		"its manifest carries no annotations, so the kit descriptor is gone too",
		"It was pushed by Docker's default `docker` driver (the classic image store), which writes Docker media types and drops annotations",
		"Build with `kitsmith build --push`, or with buildx on a docker-container builder and oci-mediatypes=true",
		"FAIL descriptor-annotation [linux/arm64]",
		"2 platforms checked (linux/amd64, linux/arm64)",
		"does not conform",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check output does not say %q:\n%s", want, stdout)
		}
	}

	// The same registry serves a conforming kit, so the failure is the
	// artifact's, not the registry's.
	good := registry + "/kitsmith-test/tool:" + strconv.Itoa(os.Getpid())
	at.Push(t, good, at.Mixin(t).Index(t))
	if stdout, stderr, code := runCLI(t, "check", good); code != exitOK {
		t.Errorf("check %s exits %d, want 0\n%s%s", good, code, stdout, stderr)
	}
	if stdout, _, code := runCLI(t, "inspect", "--format", "json", good); code != exitOK || !strings.Contains(stdout, `"annotationSource": "index"`) {
		t.Errorf("inspect %s exits %d:\n%s", good, code, stdout)
	}
}
