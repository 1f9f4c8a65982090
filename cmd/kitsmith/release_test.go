package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/version"
)

// releaseTool returns the binary the environment variable names, or skips
// (fails with KITSMITH_INTEGRATION=1).
func releaseTool(t *testing.T, name string) string {
	t.Helper()
	bin := os.Getenv(name)
	if bin == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatalf("KITSMITH_INTEGRATION=1 but %s is not set (scripts/services.sh env)", name)
		}
		t.Skipf("%s is not set (scripts/services.sh env)", name)
	}
	return bin
}

// command runs name args in dir with a bound on its time and returns its
// combined output.
func command(t *testing.T, timeout time.Duration, dir string, envs []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envs...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// snapshotRelease builds a one-target snapshot release (linux, this
// machine's architecture) of the repository with the pinned goreleaser,
// SBOM included when syft is there, into a temporary dist directory.
func snapshotRelease(t *testing.T, goreleaser string) (dist, version, clone string) {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(repo, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	build := cfg["builds"].([]any)[0].(map[string]any)
	build["goos"] = []string{"linux"}
	build["goarch"] = []string{runtime.GOARCH}
	dist = t.TempDir()
	cfg["dist"] = dist
	envs := []string{"GOFLAGS=-mod=readonly"}
	if syft := os.Getenv("KITSMITH_TEST_SYFT"); syft != "" {
		envs = append(envs, "PATH="+filepath.Dir(syft)+string(os.PathListSeparator)+os.Getenv("PATH"))
	} else {
		delete(cfg, "sboms")
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(config, out, 0o644); err != nil {
		t.Fatal(err)
	}
	// A clone of HEAD, as CI has: committed sources only, and a remote, without
	// which GoReleaser reads no git state (commit and date become "none").
	clone = filepath.Join(t.TempDir(), "kitsmith")
	if out, err := command(t, 2*time.Minute, repo, nil, "git", "clone", "--quiet", "--shared", repo, clone); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	t0 := time.Now()
	// --clean empties dist, which is ours; the real dist/ is untouched.
	if out, err := command(t, 15*time.Minute, clone, envs, goreleaser, "release", "--snapshot", "--clean", "--config", config); err != nil {
		t.Fatalf("goreleaser release --snapshot (one target): %v\n%s", err, out)
	}
	t.Logf("one-target snapshot built in %s", time.Since(t0).Round(time.Second))
	meta, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	return dist, m.Version, clone
}

// checksums parses a checksums.txt.
func checksums(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", line)
		}
		out[name] = sum
	}
	return out
}

// untarKitsmith extracts kitsmith from a release archive into dir and
// returns its path and the archive entry's modification time.
func untarKitsmith(t *testing.T, archive, dir string) (string, time.Time) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("%s holds no kitsmith", archive)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "kitsmith" {
			continue
		}
		bin := filepath.Join(dir, "kitsmith")
		out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, io.LimitReader(tr, 512<<20)); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		return bin, h.ModTime
	}
}

// TestRelease checks the GoReleaser configuration, builds a one-target
// snapshot release, checks what a release holds (archive, checksums,
// SPDX SBOM, a binary stamped with version, commit and date), then runs
// the composite action's install step against a loopback server that
// serves the snapshot as a release.
func TestRelease(t *testing.T) {
	goreleaser := releaseTool(t, "KITSMITH_TEST_GORELEASER")
	repo := filepath.Join("..", "..")
	if out, err := command(t, time.Minute, repo, nil, goreleaser, "check"); err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
	dist, rel, clone := snapshotRelease(t, goreleaser)
	archive := fmt.Sprintf("kitsmith_%s_linux_%s.tar.gz", rel, runtime.GOARCH)
	sums := checksums(t, filepath.Join(dist, "checksums.txt"))
	b, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatalf("the snapshot has no %s: %v", archive, err)
	}
	if sum := sha256.Sum256(b); sums[archive] != hex.EncodeToString(sum[:]) {
		t.Errorf("checksums.txt records %s for %s, the file's sha256 is %x", sums[archive], archive, sum)
	}
	t.Run("SBOM", func(t *testing.T) {
		if os.Getenv("KITSMITH_TEST_SYFT") == "" {
			t.Skip("KITSMITH_TEST_SYFT is not set: no SBOM built")
		}
		b, err := os.ReadFile(filepath.Join(dist, archive+".spdx.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			SPDXVersion string `json:"spdxVersion"`
			Packages    []struct {
				Name string `json:"name"`
			} `json:"packages"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, p := range doc.Packages {
			names[p.Name] = true
		}
		if !strings.HasPrefix(doc.SPDXVersion, "SPDX-2.") || !names["github.com/spf13/cobra"] || !names["github.com/sigstore/sigstore-go"] {
			t.Errorf("SBOM %s: spdxVersion %q, %d packages; want SPDX 2 listing kitsmith's modules", archive, doc.SPDXVersion, len(doc.Packages))
		}
		if _, ok := sums[archive+".spdx.json"]; !ok {
			t.Errorf("checksums.txt does not cover the SBOM")
		}
	})
	bin, mtime := untarKitsmith(t, filepath.Join(dist, archive), t.TempDir())
	head, err := command(t, time.Minute, clone, nil, "git", "log", "-1", "--format=%H %cI %ct")
	if err != nil {
		t.Fatalf("git log: %v %s", err, head)
	}
	var commit, date string
	var stamp int64
	fmt.Sscan(head, &commit, &date, &stamp)
	if mtime.Unix() != stamp {
		t.Errorf("archive entry time %s, want the commit time %s (reproducible archives)", mtime, time.Unix(stamp, 0))
	}
	out, err := command(t, time.Minute, ".", nil, bin, "version", "--format", "json")
	if err != nil {
		t.Fatalf("kitsmith version: %v\n%s", err, out)
	}
	var v version.Document
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	commitTime, _ := time.Parse(time.RFC3339, date)
	stampedTime, err := time.Parse(time.RFC3339, v.Date)
	if v.Version != "v"+rel || v.Revision != commit || err != nil || !stampedTime.Equal(commitTime) || v.Go != runtime.Version() {
		t.Errorf("release binary reports %+v; want version v%s, commit %s, date %s, Go %s", v, rel, commit, date, runtime.Version())
	}
	t.Run("action install", func(t *testing.T) { testActionInstall(t, dist, "v"+rel, archive) })
}

// releaseServer serves dist as the release "tag" of a releases URL, the way
// GitHub serves .../releases/download/TAG/FILE; missing names 404. It
// counts requests, and stops with the test.
func releaseServer(t *testing.T, dist, tag string, missing ...string) string {
	t.Helper()
	gone := map[string]bool{}
	for _, m := range missing {
		gone[m] = true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/"+tag+"/")
		if !ok || strings.Contains(name, "/") || gone[name] {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(dist, name))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// actionCopy lays out the action as a released one would be: the scripts
// under action/ and, when sums is not nil, the recorded version and
// checksums.
func actionCopy(t *testing.T, tag string, sums []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "action"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"install.sh", "run.sh"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "action", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "action", name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if sums != nil {
		if err := os.WriteFile(filepath.Join(dir, "action", "version"), []byte(tag+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "action", "checksums.txt"), sums, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runInstall runs the action's install step as the runner would, with a
// PATH that has no kitsmith and no cosign.
func runInstall(t *testing.T, actionPath, url string, envs ...string) (out string, bin string, err error) {
	t.Helper()
	tmp := t.TempDir()
	ghPath := filepath.Join(tmp, "github_path")
	base := []string{
		"ACTION_PATH=" + actionPath, "RUNNER_OS=Linux", "RUNNER_ARCH=" + map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH],
		"RUNNER_TEMP=" + tmp, "GITHUB_PATH=" + ghPath, "KITSMITH_RELEASES_URL=" + url, "PATH=/usr/bin:/bin",
		"INPUT_VERSION=", "ACTION_REF=",
	}
	out, err = command(t, 2*time.Minute, tmp, append(base, envs...), "bash", filepath.Join(actionPath, "action", "install.sh"), "install")
	if p, rerr := os.ReadFile(ghPath); rerr == nil {
		bin = filepath.Join(strings.TrimSpace(string(p)), "kitsmith")
	}
	return out, bin, err
}

func testActionInstall(t *testing.T, dist, tag, archive string) {
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	url := releaseServer(t, dist, tag)
	t.Run("recorded checksums match: installed", func(t *testing.T) {
		out, bin, err := runInstall(t, actionCopy(t, tag, sums), url)
		if err != nil || bin == "" {
			t.Fatalf("install: %v\n%s", err, out)
		}
		if !strings.Contains(out, "kitsmith "+tag+"\n") || !strings.Contains(out, "sha256 "+checksums(t, filepath.Join(dist, "checksums.txt"))[archive]+" recorded in the action") {
			t.Errorf("install output:\n%s", out)
		}
		if v, err := command(t, time.Minute, ".", nil, bin, "--version"); err != nil || !strings.HasPrefix(v, "kitsmith "+tag+"\n") {
			t.Errorf("installed kitsmith --version: %v\n%s", err, v)
		}
	})
	t.Run("checksum mismatch: refused", func(t *testing.T) {
		wrong := strings.Replace(string(sums), checksums(t, filepath.Join(dist, "checksums.txt"))[archive], strings.Repeat("0", 64), 1)
		out, bin, err := runInstall(t, actionCopy(t, tag, []byte(wrong)), url)
		if err == nil || bin != "" || !strings.Contains(out, "checksum mismatch for "+archive+": expected "+strings.Repeat("0", 64)) || !strings.Contains(out, "refusing to install") {
			t.Errorf("install with a wrong recorded checksum: err %v, on PATH %q\n%s", err, bin, out)
		}
	})
	t.Run("archive missing from the release: refused", func(t *testing.T) {
		out, bin, err := runInstall(t, actionCopy(t, tag, sums), releaseServer(t, dist, tag, archive))
		if err == nil || bin != "" {
			t.Errorf("install of a missing archive: err %v, on PATH %q\n%s", err, bin, out)
		}
		if !strings.Contains(out, "/"+tag+"/"+archive+" failed: HTTP 404") {
			t.Errorf("the error does not name the archive and the 404:\n%s", out)
		}
	})
	t.Run("no checksum recorded for the platform: refused", func(t *testing.T) {
		out, _, err := runInstall(t, actionCopy(t, tag, []byte("0000  kitsmith_other.tar.gz\n")), url)
		if err == nil || !strings.Contains(out, "records no checksum for "+archive) {
			t.Errorf("install without a recorded checksum: err %v\n%s", err, out)
		}
	})
	t.Run("another release needs its signed checksums", func(t *testing.T) {
		out, _, err := runInstall(t, actionCopy(t, tag, sums), url, "INPUT_VERSION=v9.9.9")
		if err == nil || !strings.Contains(out, "verifying release v9.9.9 needs cosign") {
			t.Errorf("install of another release without cosign: err %v\n%s", err, out)
		}
	})
	t.Run("unpinned action ref: refused", func(t *testing.T) {
		out, _, err := runInstall(t, actionCopy(t, tag, nil), url, "ACTION_REF=main")
		if err == nil || !strings.Contains(out, "this action ref (main) records no kitsmith release") {
			t.Errorf("install from an unpinned ref: err %v\n%s", err, out)
		}
	})
}

// signChecksums signs dist's checksums.txt keyless on the local Sigstore
// stack, as the release workflow of kitsmith/kitsmith at ref would, and
// returns a directory serving the archive, checksums.txt and its bundle.
func signChecksums(t *testing.T, dist, archive, ref string) string {
	t.Helper()
	cosign := os.Getenv("KITSMITH_TEST_COSIGN")
	tokenURL := os.Getenv("KITSMITH_TEST_OIDC_GITHUB_URL") + "/token?repository=kitsmith/kitsmith&ref=" + ref
	resp, err := http.Get(tokenURL)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("token: %v %s", err, resp.Status)
	}
	dir := t.TempDir()
	for _, f := range []string{archive, "checksums.txt"} {
		b, err := os.ReadFile(filepath.Join(dist, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := command(t, 2*time.Minute, dir, nil, cosign, "sign-blob", "--yes",
		"--signing-config", os.Getenv("KITSMITH_TEST_SIGNING_CONFIG"), "--trusted-root", os.Getenv("KITSMITH_TEST_TRUSTED_ROOT"),
		"--identity-token", strings.TrimSpace(string(tok)), "--bundle", "checksums.txt.sigstore.json", "checksums.txt"); err != nil {
		t.Fatalf("cosign sign-blob: %v\n%s", err, out)
	}
	return dir
}

// TestActionInstallSigned installs a release the action does not record
// (version: vX.Y.Z): its checksums.txt must carry a Sigstore bundle of
// kitsmith's release workflow at that tag, checked with cosign verify-blob
// (on the local Sigstore stack; the issuer and trusted root are the test's).
// A bundle from another ref of the same workflow is refused.
func TestActionInstallSigned(t *testing.T) {
	goreleaser := releaseTool(t, "KITSMITH_TEST_GORELEASER")
	cosign := releaseTool(t, "KITSMITH_TEST_COSIGN")
	if os.Getenv("KITSMITH_TEST_OIDC_GITHUB_URL") == "" {
		t.Skip("no local Sigstore stack (scripts/services.sh env)")
	}
	dist, rel, _ := snapshotRelease(t, goreleaser)
	tag := "v" + rel
	archive := fmt.Sprintf("kitsmith_%s_linux_%s.tar.gz", rel, runtime.GOARCH)
	verifyEnv := []string{
		"INPUT_VERSION=" + tag, "PATH=" + filepath.Dir(cosign) + ":/usr/bin:/bin",
		"KITSMITH_RELEASE_ISSUER=" + os.Getenv("KITSMITH_TEST_OIDC_GITHUB_URL"),
		"KITSMITH_COSIGN_TRUSTED_ROOT=" + os.Getenv("KITSMITH_TEST_TRUSTED_ROOT"),
	}
	t.Run("signed by the release workflow at the tag: installed", func(t *testing.T) {
		srv := releaseServer(t, signChecksums(t, dist, archive, "refs/tags/"+tag), tag)
		out, bin, err := runInstall(t, actionCopy(t, tag, nil), srv, verifyEnv...)
		if err != nil || bin == "" || !strings.Contains(out, "from the signed checksums.txt") || !strings.Contains(out, "kitsmith "+tag+"\n") {
			t.Fatalf("install: %v\n%s", err, out)
		}
	})
	t.Run("signed at another ref: refused", func(t *testing.T) {
		srv := releaseServer(t, signChecksums(t, dist, archive, "refs/heads/main"), tag)
		out, bin, err := runInstall(t, actionCopy(t, tag, nil), srv, verifyEnv...)
		if err == nil || bin != "" || !strings.Contains(out, "is not signed by kitsmith's release workflow: refusing to install") {
			t.Errorf("install of a release signed at refs/heads/main: err %v\n%s", err, out)
		}
	})
}
