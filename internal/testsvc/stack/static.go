package stack

import (
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
// CGO_ENABLED=0, once per test binary.
func StaticKitsmith(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KITSMITH_TEST_STATIC_KITSMITH"); p != "" {
		return p
	}
	static.once.Do(func() {
		dir, err := os.MkdirTemp("", "kitsmith-static-")
		if err != nil {
			static.err = err
			return
		}
		static.path = filepath.Join(dir, "kitsmith")
		cmd := exec.Command("go", "build", "-o", static.path, "github.com/kitsmith/kitsmith/cmd/kitsmith")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		static.out, static.err = cmd.CombinedOutput()
	})
	if static.err != nil {
		t.Fatalf("building a static kitsmith: %v\n%s", static.err, static.out)
	}
	return static.path
}
