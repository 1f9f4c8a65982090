package kitimage

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compose applies layers of entries in order.
func compose(t *testing.T, want func(string) int64, layers ...[]entry) *FS {
	t.Helper()
	if want == nil {
		want = func(string) int64 { return 0 }
	}
	f := NewFS(want, nil)
	for i, es := range layers {
		if err := f.Apply(context.Background(), bytes.NewReader(tarBytes(t, es...)), i); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func paths(f *FS) []string {
	var out []string
	Walk(f.Root, func(n *Node) {
		s := n.Path()
		if n.IsDir() {
			s += "/"
		}
		out = append(out, s)
	})
	return out
}

func TestLayerFSWhiteouts(t *testing.T) {
	f := compose(t, nil,
		[]entry{dir("a/", 0), file("a/x", "1"), file("a/y", "1"), dir("b/", 0), file("b/z", "1"), file("keep", "1")},
		[]entry{file("a/.wh.x", ""), file("b/.wh..wh..opq", ""), file("b/new", "2"), file(".wh.keep", ""), file("c/d/e", "3")},
		[]entry{file("c/.wh.d", ""), file("a/x", "again")},
	)
	want := []string{"/a/", "/a/x", "/a/y", "/b/", "/b/new", "/c/"}
	if diff := cmp.Diff(want, paths(f)); diff != "" {
		t.Errorf("composed paths mismatch (-want +got):\n%s", diff)
	}
	if n := f.Lookup("/c", false); n == nil || n.Explicit() {
		t.Errorf("/c should be an implied directory, got %+v", n)
	}
}

func TestLayerFSLookup(t *testing.T) {
	f := compose(t, func(p string) int64 { return 100 },
		[]entry{
			symlink("bin", "usr/bin"), dir("usr/", 0), dir("usr/bin/", 0), exe("usr/bin/dash", "sh!"),
			symlink("usr/bin/sh", "dash"), symlink("usr/bin/up", "../../etc/passwd"), dir("etc/", 0),
			file("etc/passwd", "root"), symlink("loop1", "loop2"), symlink("loop2", "/loop1"),
			{name: "etc/hard", typ: tar.TypeLink, link: "etc/passwd"},
			symlink("abs", "/usr/bin/../bin/dash"), symlink("etc/climb", "../../../../etc/passwd"),
		},
	)
	tests := []struct {
		path   string
		follow bool
		want   string // the node's path, "" for none
	}{
		{path: "/bin/sh", follow: true, want: "/usr/bin/dash"},
		{path: "/bin/sh", follow: false, want: "/usr/bin/sh"},
		{path: "/bin", follow: false, want: "/bin"},
		{path: "/bin/up", follow: true, want: "/etc/passwd"},
		{path: "/loop1", follow: true},
		{path: "/loop1", follow: false, want: "/loop1"},
		{path: "/etc/hard", follow: true, want: "/etc/passwd"},
		{path: "/abs", follow: true, want: "/usr/bin/dash"},
		{path: "/etc/climb", follow: true, want: "/etc/passwd"},
		{path: "/etc/passwd/x", follow: true},
		{path: "/missing", follow: true},
	}
	for _, tt := range tests {
		got := ""
		if n := f.Lookup(tt.path, tt.follow); n != nil {
			got = n.Path()
		}
		if got != tt.want {
			t.Errorf("lookup(%q, %v) = %q, want %q", tt.path, tt.follow, got, tt.want)
		}
	}
	if b, err := f.ReadFile("/bin/sh"); err != nil || string(b) != "sh!" {
		t.Errorf("readFile(/bin/sh) = %q, %v", b, err)
	}
	if _, err := f.ReadFile("/usr"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("readFile(/usr) error = %v, want errNotRegular", err)
	}
	want := []Symlink{{Path: "/loop1", Target: "loop2"}, {Path: "/loop2", Target: "/loop1"}}
	if diff := cmp.Diff(want, f.DanglingLinks()); diff != "" {
		t.Errorf("danglingLinks mismatch (-want +got):\n%s", diff)
	}
}

func TestLayerFSCaptureBounds(t *testing.T) {
	f := compose(t, func(p string) int64 { return 4 }, []entry{file("small", "1234"), file("big", "12345")})
	if b, err := f.ReadFile("/small"); err != nil || string(b) != "1234" {
		t.Errorf("readFile(/small) = %q, %v", b, err)
	}
	if _, err := f.ReadFile("/big"); !errors.Is(err, ErrFileTooBig) {
		t.Errorf("readFile(/big) error = %v, want errFileTooBig", err)
	}
}

func TestLayerFSCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := NewFS(wantedFile, nil)
	if err := f.Apply(ctx, bytes.NewReader(tarBytes(t, file("a", "b"))), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("apply with a cancelled context = %v, want context.Canceled", err)
	}
}

// entry is one tar entry of a test layer; artifacttest has the full
// builder, which this package's own tests cannot import.
type entry struct {
	name string
	typ  byte
	mode int64
	body string
	link string
}

func dir(name string, _ int) entry { return entry{name: name, typ: tar.TypeDir, mode: 0o755} }
func file(name, body string) entry {
	return entry{name: name, typ: tar.TypeReg, mode: 0o644, body: body}
}
func exe(name, body string) entry {
	return entry{name: name, typ: tar.TypeReg, mode: 0o755, body: body}
}
func symlink(name, target string) entry {
	return entry{name: name, typ: tar.TypeSymlink, mode: 0o777, link: target}
}

func tarBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Linkname: e.link}
		if e.typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
