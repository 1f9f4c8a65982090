package publish

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/kitsmith/kitsmith/pkg/review"
)

// FormatVersion is the version of the Metadata shape.
const FormatVersion = 1

// Metadata is a publish run in the shape of kitsmith's metadata file
// (--metadata-file): what a release pipeline needs to pass on.
type Metadata struct {
	// FormatVersion is the version of this shape, FormatVersion.
	FormatVersion int `json:"formatVersion"`
	// Kits are the kits, in the order given.
	Kits []KitMetadata `json:"kits"`
}

// KitMetadata is one kit in Metadata.
type KitMetadata struct {
	Kit       string `json:"kit"`
	Stem      string `json:"stem"`
	Reference string `json:"reference"`
	// Status is "published", "unchanged" (the tag already pointed at this
	// digest) or "failed".
	Status string `json:"status"`
	// FailedStage and Error say why a kit failed.
	FailedStage string `json:"failedStage,omitempty"`
	Error       string `json:"error,omitempty"`
	// CeilingViolations are the grants beyond the admission policy's
	// ceiling (Options.Policy) that stopped the kit at the policy stage.
	CeilingViolations []review.Violation `json:"ceilingViolations,omitempty"`
	// Digest is the index digest; Pinned the reference by digest.
	Digest    string             `json:"digest,omitempty"`
	Pinned    string             `json:"pinned,omitempty"`
	Manifests []PlatformManifest `json:"manifests"`
	// Signed is false for --unsigned (and for failures before signing).
	Signed             bool              `json:"signed"`
	Signature          *SignatureMeta    `json:"signature,omitempty"`
	ManifestSignatures []SignatureMeta   `json:"manifestSignatures,omitempty"`
	Provenance         *SignatureMeta    `json:"provenance,omitempty"`
	Tagged             bool              `json:"tagged"`
	Moved              bool              `json:"moved,omitempty"`
	Previous           string            `json:"previous,omitempty"`
	Pushed             []string          `json:"pushed"`
	TimingsMillis      map[Stage]float64 `json:"timingsMillis"`
}

// PlatformManifest is a platform manifest in Metadata.
type PlatformManifest struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
}

// SignatureMeta is a signature or attestation in Metadata.
type SignatureMeta struct {
	Referrer string `json:"referrer"`
	Subject  string `json:"subject"`
	Identity string `json:"identity"`
	Issuer   string `json:"issuer,omitempty"`
	LogIndex *int64 `json:"logIndex,omitempty"`
}

func signatureMeta(s *Signature) *SignatureMeta {
	if s == nil {
		return nil
	}
	m := &SignatureMeta{Referrer: s.Referrer.Digest.String(), Subject: s.Subject.Digest.String(), Identity: s.Identity, Issuer: s.Issuer}
	if s.LogIndex >= 0 {
		n := s.LogIndex
		m.LogIndex = &n
	}
	return m
}

// Status returns "published", "unchanged" or "failed".
func (k *KitResult) Status() string {
	switch {
	case k.Err != nil:
		return "failed"
	case k.Unchanged:
		return "unchanged"
	}
	return "published"
}

// Pinned returns the reference by digest (registry/repo@sha256:…), or ""
// before the build.
func (k *KitResult) Pinned() string {
	if k.Index.Digest.Hex == "" || k.Reference == "" {
		return ""
	}
	return pinTo(k.Reference, k.Index.Digest.String())
}

// Metadata returns the run in the metadata file's shape.
func (r *Result) Metadata() Metadata {
	m := Metadata{FormatVersion: FormatVersion, Kits: []KitMetadata{}}
	for _, k := range r.Kits {
		km := KitMetadata{
			Kit: k.Kit, Stem: k.Stem, Reference: k.Reference, Status: k.Status(), FailedStage: string(k.FailedStage()),
			Digest: k.Digest(), Pinned: k.Pinned(), Manifests: []PlatformManifest{},
			Signed: k.Signature != nil, Signature: signatureMeta(k.Signature), Provenance: signatureMeta(k.Provenance),
			Tagged: k.Tagged, Moved: k.Moved, Pushed: []string{}, TimingsMillis: map[Stage]float64{},
		}
		if k.Err != nil {
			km.Error = k.Err.Error()
		}
		if k.Ceiling != nil {
			km.CeilingViolations = k.Ceiling.Violations
		}
		if k.Previous != nil {
			km.Previous = k.Previous.Digest.String()
		}
		for _, x := range k.Manifests {
			km.Manifests = append(km.Manifests, PlatformManifest{Platform: x.Platform, Digest: x.Digest.String()})
		}
		for _, s := range k.ManifestSignatures {
			km.ManifestSignatures = append(km.ManifestSignatures, *signatureMeta(s))
		}
		for _, d := range k.Pushed {
			km.Pushed = append(km.Pushed, d.Digest.String())
		}
		for _, t := range k.Timings {
			km.TimingsMillis[t.Stage] += float64(t.Duration.Microseconds()) / 1000
		}
		for st, ms := range km.TimingsMillis {
			km.TimingsMillis[st] = math.Round(ms*10) / 10
		}
		m.Kits = append(m.Kits, km)
	}
	return m
}

// WriteMetadata writes the run's Metadata as indented JSON.
func WriteMetadata(w io.Writer, r *Result) error {
	b, err := json.MarshalIndent(r.Metadata(), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteSummary writes what happened to each kit, for a terminal: the
// reference, digests, signature and provenance referrers, the signer, and
// for a failure the stage, the reason and what stays pushed by digest.
func WriteSummary(w io.Writer, r *Result) error {
	var b strings.Builder
	for _, k := range r.Kits {
		switch {
		case k.Err != nil:
			fmt.Fprintf(&b, "FAILED %s at %s: no tag written\n", k.Kit, k.FailedStage())
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(k.Err.Error(), "\n", "\n  "))
			if len(k.Pushed) > 0 {
				b.WriteString("  pushed by digest (unreachable without a tag):\n")
				for _, d := range k.Pushed {
					fmt.Fprintf(&b, "    %s@%s\n", repoOf(k.Reference), d.Digest)
				}
			}
			continue
		case k.Unchanged:
			fmt.Fprintf(&b, "unchanged %s: already points at %s; nothing pushed, signed or tagged (a forced publish re-signs and re-tags)\n", k.Reference, k.Index.Digest)
			continue
		case k.Unsigned:
			fmt.Fprintf(&b, "published %s UNSIGNED (published without signing: no signature, no provenance, nothing verified)\n", k.Reference)
		default:
			fmt.Fprintf(&b, "published %s\n", k.Reference)
		}
		writeKitDetails(&b, k)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeKitDetails(b *strings.Builder, k *KitResult) {
	row := func(label, value string) { fmt.Fprintf(b, "  %-12s %s\n", label, value) }
	row("index", k.Pinned())
	for _, m := range k.Manifests {
		row(m.Platform, m.Digest.String())
	}
	if k.Moved && k.Previous != nil {
		row("moved from", k.Previous.Digest.String())
	}
	if s := k.Signature; s != nil {
		row("signature", s.Referrer.Digest.String())
		for _, ms := range k.ManifestSignatures {
			row("  manifest", ms.Referrer.Digest.String()+" (of "+ms.Subject.Digest.String()+")")
		}
		if k.Provenance != nil {
			row("provenance", k.Provenance.Referrer.Digest.String()+" ("+SLSAPredicateType+")")
		}
		row("signer", s.Identity)
		if s.Issuer != "" {
			row("issuer", s.Issuer)
		}
		if s.LogIndex >= 0 {
			row("log index", fmt.Sprint(s.LogIndex))
		}
	}
	if v := k.Verified; v != nil {
		row("verified", fmt.Sprintf("%d signature%s by %s, read back from the registry", v.Signatures, plural(v.Signatures), v.Identity))
	}
	row("stages", timingLine(k.Timings))
}

// timingLine renders stage timings, merging repeated stages (the tag
// check and the tag).
func timingLine(ts []Timing) string {
	total := map[Stage]time.Duration{}
	var order []Stage
	for _, t := range ts {
		if _, ok := total[t.Stage]; !ok {
			order = append(order, t.Stage)
		}
		total[t.Stage] += t.Duration
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %s", s, total[s].Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// WriteMarkdown writes the job summary (GitHub's GITHUB_STEP_SUMMARY): a
// table of the kits with their status, reference, digest and signer.
func WriteMarkdown(w io.Writer, r *Result) error {
	var b strings.Builder
	b.WriteString("### kitsmith publish\n\n| kit | status | reference | digest | signer |\n|---|---|---|---|---|\n")
	for _, k := range r.Kits {
		status, signer := k.Status(), "unsigned"
		if k.Err != nil {
			status = "failed at " + string(k.FailedStage())
		}
		if s := k.Signature; s != nil {
			signer = s.Identity
			if s.Issuer != "" {
				signer += " (" + s.Issuer + ")"
			}
		} else if k.Err != nil || k.Unchanged {
			signer = ""
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | `%s` | %s |\n", k.Kit, status, k.Reference, k.Digest(), signer)
	}
	for _, k := range r.Failed() {
		fmt.Fprintf(&b, "\n**%s** failed at **%s**:\n\n```\n%s\n```\n", k.Kit, k.FailedStage(), k.Err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGitHubOutput writes the step outputs (GitHub's GITHUB_OUTPUT):
// digest and ref of the published kits, one per line in the order given,
// failed kits left out.
func WriteGitHubOutput(w io.Writer, r *Result) error {
	var refs, digests []string
	for _, k := range r.Kits {
		if k.Err == nil {
			refs, digests = append(refs, k.Reference), append(digests, k.Digest())
		}
	}
	var b strings.Builder
	for _, o := range []struct {
		name   string
		values []string
	}{{"digest", digests}, {"ref", refs}} {
		if len(o.values) <= 1 {
			fmt.Fprintf(&b, "%s=%s\n", o.name, strings.Join(o.values, ""))
			continue
		}
		fmt.Fprintf(&b, "%s<<KITSMITH_EOF\n%s\nKITSMITH_EOF\n", o.name, strings.Join(o.values, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
