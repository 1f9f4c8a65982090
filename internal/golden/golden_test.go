package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
	r.fatal = true
	runtime.Goexit()
}
func (r *recorder) Fatal(a ...any) { r.Fatalf("%s", fmt.Sprint(a...)) }

// check runs Check on a recorder in a goroutine of its own, so that a
// fatal failure ends only that goroutine.
func check(t *testing.T, path string, got []byte) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return r
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name      string
		update    string
		file      string // "" means no golden file
		got       string
		wantErrs  int
		wantFatal bool
		wantFile  string
	}{
		{name: "equal", file: "a\n", got: "a\n", wantFile: "a\n"},
		{name: "differs", file: "a\n", got: "b\n", wantErrs: 1, wantFile: "a\n"},
		{name: "missing", got: "a\n", wantErrs: 1, wantFatal: true},
		{name: "update rewrites", update: "1", file: "a\n", got: "b\n", wantFile: "b\n"},
		{name: "update creates", update: "1", got: "b\n", wantFile: "b\n"},
		{name: "only 1 updates", update: "true", file: "a\n", got: "b\n", wantErrs: 1, wantFile: "a\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Env, tt.update)
			path := filepath.Join(t.TempDir(), "sub", "x.golden")
			if tt.file != "" {
				Write(t, path, []byte(tt.file))
			}
			r := check(t, path, []byte(tt.got))
			if len(r.errs) != tt.wantErrs || r.fatal != tt.wantFatal {
				t.Errorf("errors %q (fatal %v), want %d (fatal %v)", r.errs, r.fatal, tt.wantErrs, tt.wantFatal)
			}
			b, err := os.ReadFile(path)
			if tt.wantFile == "" {
				if err == nil {
					t.Errorf("golden file written: %q", b)
				}
				return
			}
			if err != nil || string(b) != tt.wantFile {
				t.Errorf("golden file = %q, %v; want %q", b, err, tt.wantFile)
			}
		})
	}
}
