package spec

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"
)

// benchCorpus holds the valid kits of testdata in memory: their
// directories (for Load) and descriptor sources (for a plain decode).
type benchCorpus struct {
	fsys  fstest.MapFS
	dirs  []string
	srcs  [][]byte
	bytes int64
}

func loadBenchCorpus(b *testing.B) *benchCorpus {
	b.Helper()
	c := &benchCorpus{fsys: fstest.MapFS{}}
	root := "testdata/valid"
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "want.") {
			return err
		}
		data, err := os.ReadFile(path.Join(root, p))
		c.fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		k, err := Load(c.fsys, e.Name())
		if err != nil {
			b.Fatal(err)
		}
		if r := k.Validate(); !r.OK() {
			b.Fatalf("%s: %v", e.Name(), r.Err())
		}
		c.dirs = append(c.dirs, e.Name())
		c.srcs = append(c.srcs, k.Source)
		c.bytes += int64(len(k.Source))
	}
	return c
}

// plainDescriptor mirrors Descriptor for a plain yaml.v3 decode.
type plainDescriptor struct {
	SchemaVersion string              `yaml:"schemaVersion"`
	DisplayName   string              `yaml:"displayName"`
	Author        string              `yaml:"author"`
	Description   string              `yaml:"description"`
	SourceURL     string              `yaml:"sourceUrl"`
	IconURL       string              `yaml:"iconUrl"`
	Version       string              `yaml:"version"`
	Licenses      []string            `yaml:"licenses"`
	Kind          string              `yaml:"kind"`
	Provides      []string            `yaml:"provides"`
	Requires      []string            `yaml:"requires"`
	Integrates    []string            `yaml:"integrates"`
	Conflicts     []string            `yaml:"conflicts"`
	Capabilities  []plainCapability   `yaml:"capabilities"`
	Args          map[string]plainArg `yaml:"args"`
	Build         string              `yaml:"build"`
	Kits          []plainKitRef       `yaml:"kits"`
	Dockerfile    string              `yaml:"dockerfile"`
}

type plainCapability struct {
	Group       *plainGroup    `yaml:"group"`
	Source      *Source        `yaml:"source"`
	Type        string         `yaml:"type"`
	Name        string         `yaml:"name"`
	Optional    bool           `yaml:"optional"`
	Config      map[string]any `yaml:"config"`
	Description string         `yaml:"description"`
}

type plainGroup struct {
	Name         string            `yaml:"name"`
	Description  string            `yaml:"description"`
	Optional     bool              `yaml:"optional"`
	Capabilities []plainCapability `yaml:"capabilities"`
}

type plainArg struct {
	Description string   `yaml:"description"`
	Default     *string  `yaml:"default"`
	Required    bool     `yaml:"required"`
	Enum        []string `yaml:"enum"`
	Pattern     string   `yaml:"pattern"`
	Env         string   `yaml:"env"`
	BuildArg    string   `yaml:"buildArg"`
}

type plainKitRef struct {
	Ref    string            `yaml:"ref"`
	Digest string            `yaml:"digest"`
	Args   map[string]string `yaml:"args"`
}

// BenchmarkDecode is the baseline: a plain strict yaml.v3 decode of the
// corpus descriptors into an equivalent struct, no validation.
func BenchmarkDecode(b *testing.B) {
	c := loadBenchCorpus(b)
	b.SetBytes(c.bytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range c.srcs {
			dec := yaml.NewDecoder(bytes.NewReader(src))
			dec.KnownFields(true)
			var d plainDescriptor
			if err := dec.Decode(&d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkValidate loads the same corpus (descriptor, recipe, context
// files, from memory) and validates it: decode with positions, JSON
// Schema, and every semantic rule.
func BenchmarkValidate(b *testing.B) {
	c := loadBenchCorpus(b)
	b.SetBytes(c.bytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, dir := range c.dirs {
			k, err := Load(c.fsys, dir)
			if err != nil {
				b.Fatal(err)
			}
			if r := k.Validate(); !r.OK() {
				b.Fatal(r.Err())
			}
		}
	}
}
