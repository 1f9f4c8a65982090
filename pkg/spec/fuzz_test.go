package spec

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// corpusFiles returns the descriptor and Dockerfile sources of the
// testdata corpus.
func corpusFiles(t testing.TB, match func(name string) bool) [][]byte {
	t.Helper()
	var out [][]byte
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !match(d.Name()) || strings.Contains(p, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isDescriptorName(name string) bool { return isYAMLName(name) }

func isDockerfileNameOrKit(name string) bool { return isDockerfileName(name) }

// FuzzParse feeds arbitrary descriptors to the decoder and every
// validation mode: nothing may panic, and every problem has a code, a
// message and a position inside the document.
func FuzzParse(f *testing.F) {
	for _, b := range corpusFiles(f, isDescriptorName) {
		f.Add(b)
	}
	f.Add([]byte(minimalMixin + "a: &a [*a]\n"))
	f.Add([]byte(minimalMixin + "<<: {kind: workload}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog(src)()
		k, err := Parse("k.yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		// YAML breaks lines at \n, \r\n and a lone \r
		lines := 1 + bytes.Count(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), []byte("\n")) + bytes.Count(bytes.ReplaceAll(src, []byte("\r\n"), nil), []byte("\r"))
		for _, m := range []Mode{ModeAuthored, ModePublished, ModeEffective} {
			r := k.Validate(WithMode(m))
			for _, e := range append(r.Errors, r.Warnings...) {
				if e.Code == "" || e.Msg == "" {
					t.Fatalf("mode %v: problem without code or message: %+v", m, e)
				}
				if e.Range.Start.Line > lines {
					t.Fatalf("mode %v: %s points past the end (%d lines)", m, e, lines)
				}
			}
		}
		if k.Descriptor != nil {
			SurfaceOf(k.Descriptor)
		}
	})
}

// FuzzExtractComment checks the comment-descriptor extractor on arbitrary
// Dockerfiles: each extracted line is the file's own bytes after its
// offset (byte-faithful), lines map in order, and the result decodes
// without a panic.
func FuzzExtractComment(f *testing.F) {
	for _, b := range corpusFiles(f, isDockerfileNameOrKit) {
		f.Add(b)
	}
	f.Add([]byte("# kit:\n#   kind: mixin\n#\n#   x: 1\r\n# y\n"))
	f.Add([]byte("# kit:"))
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog(src)()
		block, lines, ok := ExtractComment(src)
		if !ok {
			if block != nil || lines != nil {
				t.Fatal("no marker, but a block")
			}
			return
		}
		if n := bytes.Count(block, []byte("\n")); n != len(lines) {
			t.Fatalf("%d lines mapped for %d extracted", len(lines), n)
		}
		out := bytes.Split(block, []byte("\n"))
		srcLines := bytes.Split(src, []byte("\n"))
		prev := 0
		for i, o := range lines {
			if o.Line <= prev || o.Line > len(srcLines) {
				t.Fatalf("line %d maps to %d after %d", i, o.Line, prev)
			}
			prev = o.Line
			orig := bytes.TrimSuffix(srcLines[o.Line-1], []byte("\r"))
			if o.Offset > len(orig) || !bytes.Equal(orig[o.Offset:], out[i]) {
				t.Fatalf("line %d is not the file's bytes: %q vs %q", i, out[i], orig)
			}
		}
		ContentRecipe(src)
		if k, err := Parse("Dockerfile", block); err == nil {
			k.Validate()
		}
	})
}

// watchdog crashes the fuzz worker, which records the input, when one
// input takes longer than a few seconds: bounded time is part of the
// contract.
func watchdog(src []byte) (stop func()) {
	timer := time.AfterFunc(10*time.Second, func() {
		panic(fmt.Sprintf("input took over 10s: %q", src))
	})
	return func() { timer.Stop() }
}
