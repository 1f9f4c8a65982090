package migrate

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// rows are the golden cases: one directory per mapping row, holding the
// v2 kit (v2/), the expected v3 files (want/) and the report.
func rows(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "fuzz" { // fuzz is FuzzMigrate's corpus
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatal("no golden cases under testdata")
	}
	return out
}

func migrateRow(t testing.TB, row string) *Result {
	t.Helper()
	res, err := Migrate(context.Background(), os.DirFS(filepath.Join("testdata", row)), "v2",
		WithDisplayDir("v2"), WithOutputDir("want"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGolden(t *testing.T) {
	for _, row := range rows(t) {
		t.Run(row, func(t *testing.T) {
			res := migrateRow(t, row)
			var report bytes.Buffer
			if err := res.WriteReport(&report); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range res.Files {
				got[f.Name] = string(f.Data)
			}
			wantDir := filepath.Join("testdata", row, "want")
			reportPath := filepath.Join("testdata", row, "report.golden")
			if golden.Update() {
				writeGolden(t, wantDir, got, reportPath, report.Bytes())
				return
			}
			want := map[string]string{}
			err := filepath.WalkDir(wantDir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				want[filepath.Base(p)] = string(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			wantReport, err := os.ReadFile(reportPath)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(wantReport), report.String()); d != "" {
				t.Errorf("report (-want +got):\n%s", d)
			}
		})
	}
}

func writeGolden(t *testing.T, dir string, files map[string]string, reportPath string, report []byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(reportPath, report, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNetworkVerbatim checks the rule a migration lives by: every v2
// network entry reaches runtime unchanged, install gets the same allow
// entries exactly when the kit has install hooks, deny entries go into
// both phases always (v2 had one list for everything: a deny left out of
// install would let another kit's install phase reach what v2 denied),
// and nothing else is granted.
func TestNetworkVerbatim(t *testing.T) {
	checked := 0
	for _, row := range rows(t) {
		src, err := os.ReadFile(filepath.Join("testdata", row, "v2", SpecFile))
		if err != nil {
			t.Fatal(err)
		}
		var v2 struct {
			Permissions struct {
				Network struct{ Allow, Deny []string }
			}
			Setup struct{ Install []any }
		}
		if err := yaml.Unmarshal(src, &v2); err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		res := migrateRow(t, row)
		k, err := spec.Parse(res.Stem+".yaml", res.File(res.Stem+".yaml").Data)
		if err != nil {
			t.Fatal(err)
		}
		s := spec.SurfaceOf(k.Descriptor)
		net := v2.Permissions.Network
		var wantInstallAllow []string
		if len(v2.Setup.Install) > 0 {
			wantInstallAllow = sorted(net.Allow)
		}
		wantInstallDeny := sorted(net.Deny)
		got := [][]string{s.NetworkRuntimeAllow, s.NetworkRuntimeDeny, s.NetworkInstallAllow, s.NetworkInstallDeny}
		want := [][]string{sorted(net.Allow), sorted(net.Deny), wantInstallAllow, wantInstallDeny}
		if d := cmp.Diff(want, got, cmp.Transformer("empty", func(x []string) []string {
			if len(x) == 0 {
				return nil
			}
			return x
		})); d != "" {
			t.Errorf("%s: network surface [runtime allow, runtime deny, install allow, install deny] (-want +got):\n%s", row, d)
		}
		if len(net.Allow) > 0 {
			checked++
		}
	}
	if checked < 3 {
		t.Fatalf("only %d cases have network entries; the check proves little", checked)
	}
}

func sorted(x []string) []string {
	if len(x) == 0 {
		return nil
	}
	out := slices.Clone(x)
	slices.Sort(out)
	return slices.Compact(out)
}

func TestNotV2(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"v3", "schemaVersion: \"3\"\nkind: mixin\n"},
		{"v1", "schemaVersion: \"1\"\nname: old\n"},
		{"missing", "kind: mixin\n"},
		{"list", "- a\n- b\n"},
		{"syntax", "schemaVersion: [\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"kit/spec.yaml": {Data: []byte(tt.src)}}
			_, err := Migrate(context.Background(), fsys, "kit")
			if !errors.Is(err, ErrNotV2) {
				t.Fatalf("got %v, want ErrNotV2", err)
			}
		})
	}
}

func TestMissingSpec(t *testing.T) {
	_, err := Migrate(context.Background(), fstest.MapFS{}, "kit")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want fs.ErrNotExist", err)
	}
}

func TestNeedsHuman(t *testing.T) {
	tests := []struct {
		row  string
		want bool
	}{
		{"top-level", false},
		{"sandbox-recipe", false},
		{"environment", true}, // proxy variables
		{"credentials", true}, // skipIfEnv, provider, scope
		{"unmappable", true},  // extends, mixins
		{"strict", true},      // unknown fields
		{"dockerfile", true},  // the Dockerfile's CMD
		{"network-runtime", false},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			res := migrateRow(t, tt.row)
			if got := res.NeedsHuman(); got != tt.want {
				var b bytes.Buffer
				_ = res.WriteReport(&b)
				t.Errorf("NeedsHuman() = %v, want %v\n%s", got, tt.want, b.String())
			}
		})
	}
}

// TestJSONReport pins the JSON report of one case that has every part:
// carried files, notes, an action, lint findings.
func TestJSONReport(t *testing.T) {
	res := migrateRow(t, "dockerfile")
	var b bytes.Buffer
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "dockerfile", "report.json.golden"), b.Bytes())
}
