package stack

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var static struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// StaticKitsmith returns a statically linked kitsmith for this machine, as
// kitsmith test copies into its container: $KITSMITH_TEST_STATIC_KITSMITH
// when set (scripts/test.sh builds it once), else one built here with
// CGO_ENABLED=0, once per test binary, at one path per checkout in the
// temporary directory (written to a temporary name and renamed, so test
// binaries building it at once do not collide, and no copy piles up).
func StaticKitsmith(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KITSMITH_TEST_STATIC_KITSMITH"); p != "" {
		return p
	}
	static.once.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err != nil {
			static.err = err
			return
		}
		sum := sha256.Sum256(bytes.TrimSpace(out))
		dir := filepath.Join(os.TempDir(), "kitsmith-static-"+hex.EncodeToString(sum[:6]))
		if static.err = os.MkdirAll(dir, 0o755); static.err != nil {
			return
		}
		tmp, err := os.CreateTemp(dir, ".kitsmith-*")
		if err != nil {
			static.err = err
			return
		}
		tmp.Close()
		defer os.Remove(tmp.Name())
		cmd := exec.Command("go", "build", "-o", tmp.Name(), "github.com/kitsmith/kitsmith/cmd/kitsmith")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if static.out, static.err = cmd.CombinedOutput(); static.err != nil {
			return
		}
		static.path = filepath.Join(dir, "kitsmith")
		static.err = os.Rename(tmp.Name(), static.path)
	})
	if static.err != nil {
		t.Fatalf("building a static kitsmith: %v\n%s", static.err, static.out)
	}
	return static.path
}
