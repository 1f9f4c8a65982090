package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestPublishPlantedReferrers: publish digests are reproducible, so
// anyone who may push to the repository can plant referrers on the digest
// a release will have before it is published (a 50 MB bundle, a bundle
// whose blob is missing). Publish's verify stage judges them on their
// own and the release goes through.
func TestPublishPlantedReferrers(t *testing.T) {
	f := newSignFixture(t)
	for regName, reg := range junkRegistries(t) {
		t.Run(regName, func(t *testing.T) {
			e := env{"SOURCE_DATE_EPOCH": "0"}
			dir := t.TempDir()
			// Learn the digest the release will have, as an attacker can.
			probe := reg + "/kitsmith-probe/" + filepath.Base(dir) + ":1.0.0"
			meta := filepath.Join(dir, "probe.json")
			if _, stderr, code := runPublish(t, e, "--unsigned", "-t", probe, "--metadata-file", meta, "../../kits/outside"); code != exitOK {
				t.Fatalf("probe publish: exit %d\n%s", code, stderr)
			}
			var m publish.Metadata
			data, err := os.ReadFile(meta)
			if err != nil || json.Unmarshal(data, &m) != nil || len(m.Kits) != 1 {
				t.Fatalf("probe metadata: %v\n%s", err, data)
			}
			h, err := v1.NewHash(m.Kits[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			release := reg + "/kitsmith-release/" + filepath.Base(dir) + ":1.0.0"
			subject := v1.Descriptor{MediaType: "application/vnd.oci.image.index.v1+json", Digest: h, Size: 1}
			r, err := name.ParseReference(release)
			if err != nil {
				t.Fatal(err)
			}
			plant(t, r.Context().Digest(h.String()).String(), at.Referrer(t, subject, at.BundleType, bytes.Repeat([]byte("x"), 50<<20)), true)
			if regName != "distribution" {
				missing, _, _ := v1.SHA256(strings.NewReader("never uploaded"))
				plant(t, r.Context().Digest(h.String()).String(), referrerWith(t, subject, v1.Descriptor{MediaType: at.BundleType, Digest: missing, Size: 14},
					map[string]string{"dev.sigstore.bundle.content": "dsse-envelope"}), false)
			}
			stdout, stderr, code := runPublish(t, e, "-t", release, "--trusted-root", f.trustedRoot, "--fulcio-url", f.ss.FulcioURL, "--tsa-url", f.ss.TSAURL,
				"--tlog-upload=false", "--insecure-ignore-sct", "--identity-token", signtest.Token(testSigner), "../../kits/outside")
			if code != exitOK {
				t.Fatalf("publish with planted referrers: exit %d\n%s%s", code, stdout, stderr)
			}
			if d, err := artifact.Head(context.Background(), release); err != nil || d.Digest != h {
				t.Errorf("tag = %v, %v; want %s", d.Digest, err, h)
			}
		})
	}
}
