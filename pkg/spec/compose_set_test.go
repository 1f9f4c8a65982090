package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// MergeSet joins the undirected agent-context bodies of several kits into
// one entry at the set's context.md, carries groups through and pins
// nothing else; the descriptor is the same whether or not the bodies are
// read, so a review (no bodies) and a build (bodies) agree.
func TestMergeSetContexts(t *testing.T) {
	a := parseDescriptor(t, `kind: mixin
provides: ["com.example/a@1.0.0"]
capabilities:
  - type: com.docker.sandbox/agent-context@1
    name: A guidance
    config: {contentFile: /usr/share/sandbox/kit/a/a.md}
`)
	b := parseDescriptor(t, `kind: mixin
provides: ["com.example/b@1.0.0"]
requires: [com.example/a]
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {content: "Use b.\n"}
  - group: {name: scratch, optional: true, capabilities: [{type: com.docker.sandbox/volume@1, config: {path: /scratch}}]}
`)
	own := &Descriptor{SchemaVersion: SchemaVersion, Kind: KindSet, Version: "1.0.0", DisplayName: "S"}
	body := func(cf string) ([]byte, error) { return []byte("body of " + cf + "\n"), nil }
	merge := func(read func(string) ([]byte, error)) *MergedSet {
		t.Helper()
		m, err := MergeSet(own, KindSet, "s", []SetContribution{
			{Contribution: Contribution{Who: "a", Descriptor: a}, Body: read},
			{Contribution: Contribution{Who: "b", Descriptor: b}, Body: read},
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	built, reviewed := merge(body), merge(nil)
	if diff := cmp.Diff(built.Descriptor, reviewed.Descriptor); diff != "" {
		t.Errorf("descriptor with and without bodies (-built +reviewed):\n%s", diff)
	}
	want := []Capability{
		b.Capabilities[1],
		{Type: TypeAgentContext, Name: "A guidance", Description: "Agent guidance merged from the kits of the set", HasConfig: true,
			Config: map[string]any{"contentFile": "/usr/share/sandbox/kit/s/" + SetContextName}},
	}
	if diff := cmp.Diff(want, built.Descriptor.Capabilities); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	wantBodies := []StagedBody{{Path: "/usr/share/sandbox/kit/s/context.md",
		Data: []byte("<!-- from a -->\nbody of /usr/share/sandbox/kit/a/a.md\n\n<!-- from b -->\nUse b.\n")}}
	if diff := cmp.Diff(wantBodies, built.Bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if d := built.Descriptor; d.Kind != KindMixin || len(d.Requires) != 0 || d.DisplayName != "S" {
		t.Errorf("kind %s, requires %v, displayName %q", d.Kind, d.Requires, d.DisplayName)
	}
	if _, err := MergeSet(own, KindWorkload, "s", []SetContribution{{Contribution: Contribution{Who: "a", Descriptor: a}}}); err == nil {
		t.Error("a set of mixins declaring kind: workload was accepted")
	}
}

// PublishSet publishes a set's own declarations as the derived kind, its
// kits pinned and its contentFile staged.
func TestPublishSet(t *testing.T) {
	k := loadKit(t, kitSrc(`kind: set
version: "1.0.0"
kits:
  - ref: 127.0.0.1:5000/a:1.0.0
  - ref: 127.0.0.1:5000/b:1.0.0
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: ./own.md}
`), map[string]string{"own.md": "Own.\n"})
	digest := "sha256:" + strings.Repeat("ab", 32)
	if pub, rep := k.PublishSet(KindMixin, []string{digest, ""}, nil); pub != nil || !strings.Contains(rep.Err().Error(), "with no digest") {
		t.Errorf("a kit left unpinned: %v", rep.Err())
	}
	pub, rep := k.PublishSet(KindMixin, []string{digest, digest}, nil)
	if pub == nil {
		t.Fatalf("PublishSet: %v", rep.Err())
	}
	d := pub.Descriptor
	if d.Kind != KindMixin || d.Kits[0].Digest != digest || d.Kits[1].Digest != digest {
		t.Errorf("kind %s, kits %+v", d.Kind, d.Kits)
	}
	if cf := d.Capabilities[0].Config["contentFile"]; cf != "/usr/share/sandbox/kit/k/own.md" {
		t.Errorf("contentFile = %v", cf)
	}
}
