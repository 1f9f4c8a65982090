package migrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestAnchorsUnderDroppedFields: a value that aliases an anchor defined
// under a field the migration drops (an unknown key, a v2-only field) is
// written out in full, so the output parses and keeps the value.
func TestAnchorsUnderDroppedFields(t *testing.T) {
	src := `schemaVersion: "2"
kind: mixin
name: anchors
version: "1.0.0"
sourceURL: https://example.org
licenses: [MIT]
x-shared:
  hosts: &hosts
    - api.example.org
    - cdn.example.org
locked: &locked [permissions.network]
permissions:
  network:
    allow: *hosts
    deny: [telemetry.example.org]
`
	res := migrateSpec(t, src)
	k, err := spec.Parse("anchors.yaml", res.File("anchors.yaml").Data)
	if err != nil {
		t.Fatalf("the output does not parse: %v\n%s", err, res.File("anchors.yaml").Data)
	}
	if !k.Validate().OK() {
		t.Fatalf("the output does not validate: %v\n%s", k.Validate().Err(), res.File("anchors.yaml").Data)
	}
	s := spec.SurfaceOf(k.Descriptor)
	if strings.Join(s.NetworkRuntimeAllow, ",") != "api.example.org,cdn.example.org" {
		t.Errorf("runtime allow = %v, want the aliased hosts", s.NetworkRuntimeAllow)
	}
}

// TestSecondDocument: v2 read only the first YAML document of spec.yaml;
// a second one is reported, not dropped silently.
func TestSecondDocument(t *testing.T) {
	src := "schemaVersion: \"2\"\nkind: mixin\nname: two\n---\npermissions:\n  network:\n    allow: [example.org]\n"
	res := migrateSpec(t, src)
	if !hasNote(res, "v2-extra-document", true) {
		t.Errorf("no v2-extra-document action: %v", res.Notes)
	}
}

// TestPortProtocolCase: v2 protocol values are lower-cased into transport.
func TestPortProtocolCase(t *testing.T) {
	src := "schemaVersion: \"2\"\nkind: mixin\nname: p\nports:\n  - container: 8080\n    protocol: TCP\n  - container: 53\n    protocol: Udp\n"
	res := migrateSpec(t, src)
	got := surfaceOf(t, res).Ports
	if strings.Join(got, ",") != "53/udp,8080/tcp" {
		t.Errorf("ports = %v, want [53/udp 8080/tcp]", got)
	}
	if !res.Validation.OK() {
		t.Errorf("invalid output: %v", res.Validation.Err())
	}
}

// TestV1Kit: a v1 kit is refused as not v2, and the error says it is v1.
func TestV1Kit(t *testing.T) {
	fsys := fstest.MapFS{"kit/spec.yaml": {Data: []byte("schemaVersion: \"1\"\nname: old\nagent:\n  image: x\n")}}
	_, err := Migrate(context.Background(), fsys, "kit")
	if !errors.Is(err, ErrNotV2) || !errors.Is(err, ErrV1) || !strings.Contains(err.Error(), "v1 kit") {
		t.Fatalf("err = %v, want ErrV1 (and ErrNotV2) saying it is a v1 kit", err)
	}
}
