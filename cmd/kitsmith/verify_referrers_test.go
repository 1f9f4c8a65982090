package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// junkRegistries are the registries the junk-referrer tests plant into:
// the in-process one with the referrers API, one without (tag schema),
// and the distribution v3 registry of the integration suite when it runs.
func junkRegistries(t *testing.T) map[string]string {
	t.Helper()
	regs := map[string]string{"referrers-api": at.Registry(t, true), "tag-schema": at.Registry(t, false)}
	if r := os.Getenv("KITSMITH_TEST_REGISTRY"); r != "" {
		regs["distribution"] = r
	} else if os.Getenv("KITSMITH_INTEGRATION") == "1" {
		t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is unset")
	}
	return regs
}

// plant pushes img as a referrer of the kit at ref. With blobs false only
// the manifest is written, so its layer is unknown to the registry.
func plant(t *testing.T, ref string, img v1.Image, blobs bool) v1.Hash {
	t.Helper()
	ctx := context.Background()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	pinned := r.Context().Digest(h.String())
	if blobs {
		err = remote.Write(pinned, img, remote.WithContext(ctx))
	} else {
		err = remote.Put(pinned, img, remote.WithContext(ctx))
	}
	if err != nil {
		t.Fatalf("planting referrer %s: %v", h, err)
	}
	return h
}

// referrerWith is a cosign-shaped bundle referrer of subject whose layer
// descriptor is layer (which may lie about the blob).
func referrerWith(t *testing.T, subject v1.Descriptor, layer v1.Descriptor, annotations map[string]string) v1.Image {
	t.Helper()
	cfg := []byte("{}")
	ch, cn, _ := v1.SHA256(bytes.NewReader(cfg))
	m := v1.Manifest{
		SchemaVersion: 2, MediaType: types.OCIManifestSchema1, ArtifactType: at.BundleType,
		Config:      v1.Descriptor{MediaType: "application/vnd.oci.empty.v1+json", Digest: ch, Size: cn},
		Layers:      []v1.Descriptor{layer},
		Subject:     &v1.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: annotations,
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	img, err := partial.CompressedToImage(rawManifest{raw: raw, cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

type rawManifest struct{ raw, cfg []byte }

func (r rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (r rawManifest) RawManifest() ([]byte, error)        { return r.raw, nil }
func (r rawManifest) RawConfigFile() ([]byte, error)      { return r.cfg, nil }
func (r rawManifest) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if ch, _, _ := v1.SHA256(bytes.NewReader(r.cfg)); h == ch {
		return static.NewLayer(r.cfg, "application/vnd.oci.empty.v1+json"), nil
	}
	return nil, fmt.Errorf("no blob %s", h)
}

// TestVerifyJunkReferrers plants bad referrers next to a valid signature:
// a 50 MB bundle, a bundle whose blob the registry does not have
// (BLOB_UNKNOWN), a bundle that is not a bundle. Each is rejected with its
// reason, the valid one is still found, and verify exits 0.
func TestVerifyJunkReferrers(t *testing.T) {
	f := newSignFixture(t)
	for regName, reg := range junkRegistries(t) {
		t.Run(regName, func(t *testing.T) {
			ctx := context.Background()
			ref := pushKit(t, reg, "junk")
			subject, err := artifact.Head(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
				t.Fatalf("sign: exit %d\n%s", code, stderr)
			}
			big := bytes.Repeat([]byte("x"), 50<<20)
			bigRef := plant(t, ref, at.Referrer(t, subject, at.BundleType, big), true)
			notBundle := plant(t, ref, at.Referrer(t, subject, at.BundleType, []byte(`{"not":"a bundle"}`)), true)
			want := map[v1.Hash]string{bigRef: "is 52428800 bytes, over the", notBundle: "parsing bundle"}
			if regName != "distribution" { // distribution refuses a manifest whose blobs it lacks
				missing, _, _ := v1.SHA256(strings.NewReader("never uploaded"))
				h := plant(t, ref, referrerWith(t, subject, v1.Descriptor{MediaType: at.BundleType, Digest: missing, Size: 14},
					map[string]string{"dev.sigstore.bundle.content": "dsse-envelope"}), false)
				want[h] = "reading its bundle"
			}
			args := f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer)
			stdout, stderr, code := runCLI(t, append(args, ref)...)
			if code != exitOK || !strings.Contains(stdout, fmt.Sprintf("verified, 1 of %d", len(want)+1)) {
				t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
			if strings.Contains(stdout, " key :") || strings.Contains(stdout, "%!w") || strings.Count(stdout, "reading referrer") > 0 {
				t.Errorf("a rejection names an empty key, a nil error or its digest twice:\n%s", stdout)
			}
			if !strings.Contains(stdout, fmt.Sprintf("referrers: %d listed, %d examined, 0 skipped", len(want)+1, len(want)+1)) {
				t.Errorf("no referrer counts:\n%s", stdout)
			}
			for h, reason := range want {
				line := lineWith(stdout, "rejected "+h.String())
				if !strings.Contains(line, reason) {
					t.Errorf("rejection of %s = %q, want %q in it\n%s", h, line, reason, stdout)
				}
			}
			stdout, _, code = runCLI(t, append(args, "--format", "json", ref)...)
			var doc struct {
				Verified   bool `json:"verified"`
				Signatures []struct {
					Referrer string `json:"referrer"`
					Accepted bool   `json:"accepted"`
					Reason   string `json:"reason"`
				} `json:"signatures"`
				Referrers struct {
					Listed, Examined int
				} `json:"referrers"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != exitOK || !doc.Verified {
				t.Fatalf("json: exit %d, %v\n%s", code, err, stdout)
			}
			reasons := 0
			for _, s := range doc.Signatures {
				if r, ok := want[mustHash(t, s.Referrer)]; ok && !s.Accepted && strings.Contains(s.Reason, r) {
					reasons++
				}
			}
			if reasons != len(want) || doc.Referrers.Listed != len(want)+1 || doc.Referrers.Examined != len(want)+1 {
				t.Errorf("json names %d of %d rejections; referrers %+v\n%s", reasons, len(want), doc.Referrers, stdout)
			}
		})
	}
}

// lyingRegistry serves, for the manifest digest it is told, another
// manifest: a registry that answers a request by digest with content of
// another digest.
func lyingRegistry(t *testing.T) (host string, lie func(want, serve v1.Hash)) {
	t.Helper()
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	lies := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for want, serve := range lies {
			if (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasSuffix(r.URL.Path, "/manifests/"+want) {
				r = r.Clone(r.Context())
				r.URL.Path = strings.TrimSuffix(r.URL.Path, want) + serve
			}
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), func(want, serve v1.Hash) { lies[want.String()] = serve.String() }
}

// TestVerifyRegistryServesAnotherManifest: a registry answering a digest
// with another manifest fails verification (exit 1), named once.
func TestVerifyRegistryServesAnotherManifest(t *testing.T) {
	f := newSignFixture(t)
	reg, lie := lyingRegistry(t)
	ref := pushKit(t, reg, "lying")
	subject, err := artifact.Head(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	st, err := artifact.NewTarget(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.Referrers(context.Background(), subject)
	if err != nil || len(list) != 1 {
		t.Fatalf("referrers %v, %v", list, err)
	}
	other := plant(t, ref, at.Referrer(t, subject, "application/vnd.example.sbom", []byte("{}")), true)
	lie(list[0].Digest, other)
	stdout, stderr, code := runCLI(t, f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref)...)
	line := lineWith(stdout, "rejected "+list[0].Digest.String())
	if code != exitFindings || !strings.Contains(line, "another manifest") || strings.Count(stdout+stderr, "reading referrer") > 1 {
		t.Errorf("exit %d, want 1 with the substituted manifest named once\n%s%s", code, stdout, stderr)
	}
}

func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func mustHash(t *testing.T, s string) v1.Hash {
	t.Helper()
	h, err := v1.NewHash(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestVerifyRegistryServesAnotherKit: a registry that answers the kit's
// digest with another manifest fails verification (exit 1), naming both.
func TestVerifyRegistryServesAnotherKit(t *testing.T) {
	f := newSignFixture(t)
	reg, lie := lyingRegistry(t)
	repo := reg + "/kits/lying"
	ref := at.Push(t, repo+":1.0.0", at.Mixin(t).SetAnnotation("org.opencontainers.image.description", "the kit").Index(t))
	other := at.Push(t, repo+":other", at.Mixin(t).SetAnnotation("org.opencontainers.image.description", "another kit").Index(t))
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), other)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	want, served := mustHash(t, ref[strings.LastIndex(ref, "@")+1:]), mustHash(t, other[strings.LastIndex(other, "@")+1:])
	lie(want, served)
	stdout, stderr, code := runCLI(t, f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref)...)
	if code != exitFindings || !strings.Contains(stdout+stderr, served.String()) {
		t.Errorf("exit %d, want 1 naming the manifest served instead\n%s%s", code, stdout, stderr)
	}
}
