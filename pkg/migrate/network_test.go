package migrate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// migrateSpec migrates a v2 kit held in memory: spec.yaml plus extra
// files, all under kit/.
func migrateSpec(t *testing.T, src string, files ...string) *Result {
	t.Helper()
	fsys := fstest.MapFS{"kit/spec.yaml": {Data: []byte(src)}}
	for i := 0; i+1 < len(files); i += 2 {
		fsys["kit/"+files[i]] = &fstest.MapFile{Data: []byte(files[i+1]), Mode: 0o644}
	}
	res, err := Migrate(context.Background(), fsys, "kit")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func surfaceOf(t *testing.T, res *Result) *spec.Surface {
	t.Helper()
	k, err := spec.Parse(res.Stem+".yaml", res.File(res.Stem+".yaml").Data)
	if err != nil {
		t.Fatal(err)
	}
	return spec.SurfaceOf(k.Descriptor)
}

func hasNote(res *Result, code string, action bool) bool {
	return slices.ContainsFunc(res.Notes, func(n Note) bool { return n.Code == code && n.Action == action })
}

// TestUnenforcedPatterns: the entries SPEC-v2 §5.2 declared but did not
// enforce granted (or denied) nothing in v2; v3 enforces what it can
// parse of them, so none is carried over. Each is an action note, kept as
// a comment in the output. The enforced forms beside them are carried.
func TestUnenforcedPatterns(t *testing.T) {
	tests := []struct {
		entry   string
		carried bool
	}{
		{"**.example.com", false},
		{"**", false},
		{"*", false},
		{"api.example.com:80-443", false},
		{"api.example.com:*", false},
		{"10.0.0.0/8", false},
		{"fd00::/8", false},
		{"a.*.example.com", false},
		{"api.example.com", true},
		{"api.example.com:8080", true},
		{"*.example.com", true},
		{"*.example.com:443", true},
		{"registry.example.org:${{ kit.args.port }}", true},
	}
	for _, list := range []string{"allow", "deny"} {
		for _, tt := range tests {
			t.Run(list+" "+tt.entry, func(t *testing.T) {
				src := "schemaVersion: \"2\"\nkind: mixin\nname: net\nversion: \"1.0.0\"\nsourceURL: https://example.org\nlicenses: [MIT]\n" +
					"args:\n  port: {default: \"8443\"}\n" +
					"permissions:\n  network:\n    " + list + ":\n      - \"" + tt.entry + "\"\n      - kept.example.org\n"
				res := migrateSpec(t, src)
				s := surfaceOf(t, res)
				got := s.NetworkRuntimeAllow
				if list == "deny" {
					got = s.NetworkRuntimeDeny
				}
				if slices.Contains(got, tt.entry) != tt.carried {
					t.Errorf("runtime %s = %q; carried %v, want %v", list, got, !tt.carried, tt.carried)
				}
				if !slices.Contains(got, "kept.example.org") {
					t.Errorf("runtime %s = %q lost kept.example.org", list, got)
				}
				if hasNote(res, "network-unenforced", true) == tt.carried {
					t.Errorf("network-unenforced action note: %v, want %v; notes %v", !tt.carried, !tt.carried, res.Notes)
				}
				desc := string(res.File("net.yaml").Data)
				if !tt.carried && !strings.Contains(desc, "# "+CommentMarker+" network-unenforced") {
					t.Errorf("the output keeps no comment for %s:\n%s", tt.entry, desc)
				}
				if res.NeedsHuman() == tt.carried {
					t.Errorf("NeedsHuman() = %v, want %v", res.NeedsHuman(), !tt.carried)
				}
			})
		}
	}
}
