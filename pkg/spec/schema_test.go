package spec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/schemas"
)

// The entry rules of each well-known type are compiled on first use; a
// broken one would only show when a kit uses the type, so compile them
// all here.
func TestEntrySchemasCompile(t *testing.T) {
	s, err := compileSchema()
	if err != nil {
		t.Fatalf("compileSchema: %v", err)
	}
	var types []string
	for typ := range s.dispatch {
		types = append(types, typ)
	}
	sort.Strings(types)
	want := append([]string(nil), knownTypes...)
	sort.Strings(want)
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("types with entry rules (-well-known +schema):\n%s", diff)
	}
	for _, typ := range types {
		sch, err := s.entrySchema(typ)
		if err != nil || sch == nil {
			t.Errorf("entrySchema(%s) = %v, %v", typ, sch, err)
		}
	}
	if sch, err := s.entrySchema("example.com/custom@1"); sch != nil || err != nil {
		t.Errorf("entrySchema(custom type) = %v, %v; want none", sch, err)
	}
}

func TestLazyRegexpEngine(t *testing.T) {
	engine := lazyRegexpEngine()
	if _, err := engine("(unclosed"); err == nil {
		t.Errorf("engine accepted an invalid pattern")
	}
	a, err := engine(`^[a-z]+$`)
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	b, _ := engine(`^[a-z]+$`)
	if a != b {
		t.Errorf("a repeated pattern was compiled twice")
	}
	got := []any{a.String(), a.MatchString("abc"), a.MatchString("ABC")}
	if diff := cmp.Diff([]any{`^[a-z]+$`, true, false}, got); diff != "" {
		t.Errorf("lazy regexp (-want +got):\n%s", diff)
	}
}

// Validation shares one compiled schema whose compiler keeps compiling
// entry rules as new types appear; run under -race.
func TestValidateConcurrently(t *testing.T) {
	compiledSchema = sync.OnceValues(compileSchema) // start cold
	var wg sync.WaitGroup
	errs := make([]string, len(knownTypes))
	for i, typ := range knownTypes {
		wg.Add(1)
		go func(i int, typ string) {
			defer wg.Done()
			k, _ := Parse("k.yaml", []byte(kitSrc(fmt.Sprintf(`
kind: mixin
name: k
capabilities:
  - type: %s
    config: 7
`, typ))))
			r := k.Validate()
			if r.OK() {
				errs[i] = typ + ": a config of 7 was accepted"
			}
		}(i, typ)
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
}

// TestSchemaTypeExamples: the entry schema offers the known types as
// examples (editors complete type: from them), exactly KnownTypes.
func TestSchemaTypeExamples(t *testing.T) {
	b, err := fs.ReadFile(schemas.FS(), schemas.Root)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Entry struct {
				Properties struct {
					Type struct {
						Examples []string `json:"examples"`
					} `json:"type"`
				} `json:"properties"`
			} `json:"entry"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(KnownTypes(), doc.Defs.Entry.Properties.Type.Examples); diff != "" {
		t.Errorf("type examples (-KnownTypes +schema):\n%s", diff)
	}
}
