package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/admission"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// verifierFlags is the flag group of commands that verify signatures
// (verify, and publish): the trust, the policy and the bypasses, named as
// cosign verify names them.
type verifierFlags struct {
	sigstoreFlags

	policy        sign.Policy
	policyFile    string
	key           string
	ignoreSCT     bool
	ignoreTlog    bool
	predicateType string
}

type verifyOptions struct {
	registryFlags
	formatFlag
	verifierFlags
	kitArgs  []string
	platform string
	verbose  bool
}

func newVerifyCmd(ro *rootOptions) *cobra.Command {
	o := &verifyOptions{formatFlag: newFormatFlag("text", "json")}
	cmd := &cobra.Command{
		Use:   "verify [flags] REF",
		Short: "Verify a kit's Sigstore signatures against an identity policy",
		Long: `Verify finds the Sigstore signatures stored with a kit (by kitsmith sign,
cosign sign or sbx kit sign), verifies each one against the trusted root and
accepts the kit when at least one was made by a signer the policy names.

Each referrer of the kit is read and checked itself (its artifactType and
single bundle layer), whatever the registry reports, and judged on its own:
one that cannot be read, is too large or too slow is rejected with its
reason and the others are still examined. Legacy cosign signatures (the
sha256-<hex>.sig tag cosign v2 writes, and v3 with --new-bundle-format=false)
are verified through the same trust and policy and labelled legacy;
--require-bundle refuses them. An unanchored --certificate-identity-regexp or
--certificate-oidc-issuer-regexp is accepted, as cosign accepts it, with a
warning naming the anchored form. A signature is accepted
when its statement's subject is the kit's digest, its certificate chains to
the trusted root, was valid when a timestamp authority or the transparency
log saw the signature, carries an SCT (unless --insecure-ignore-sct), is in
the transparency log (unless --insecure-ignore-tlog, which then requires a
signed timestamp), and matches the policy:

  --certificate-identity / --certificate-identity-regexp   the signer (SAN)
  --certificate-oidc-issuer / --certificate-oidc-issuer-regexp
  --certificate-github-workflow-repository, -ref, -trigger, -name, -sha
  --policy FILE   an admission policy (docs/policy.md): trusted signers,
                  GitHub workflow claims and a permission ceiling; or sign's
                  plain JSON or YAML list of trusted signers
                  {identity | identityRegexp, issuer | issuerRegexp}; in
                  both, a regular expression is anchored as a whole
                  (^…$, no top-level alternative) and matches whole values

With a policy that states a ceiling, the kit must also stay within it once
a signature is accepted: every descriptor the verified digest serves (the
index's and each platform manifest's, or the one platform --platform names;
no other network), each validated in published and effective mode and judged
in its effective form with the defaults and then --kit-arg values, may grant
no network destination, host a credential's secret goes to, raw credential,
credential, path, device, port, SSH agent or privilege the ceiling does not
allow, and no widening of a pinned baseline. Each violation names the
surface entry, the policy rule it breaks and the platforms it is on. A
descriptor that does not validate, or a platform manifest that disagrees
with the index, is refused with its reasons: never within the ceiling.

The trusted root is public-good Sigstore's (through TUF, cached in
--tuf-cache) unless --trusted-root names one, which also verifies offline.
With --key PUB.pem, signatures made with that key are verified instead; their
log entry and timestamps against --trusted-root, or --insecure-ignore-tlog.

Referrers are listed within 4096 and 16 MiB of listing (a longer list is
examined as far as it was read, and the output says so), and examined within
4096 referrers, 256 MiB read in all, 10 s per referrer and 2 minutes in all,
bundle referrers first; a referrer manifest is at most 256 KiB and a bundle
4 MiB. The output says how many were listed, examined, skipped (not
signatures) and not examined.

Exit status: 0 at least one signature satisfies the policy and the kit stays
within the ceiling (if any); 1 no signature does (the reason for each is
printed: a referrer that cannot be read, is too large, too slow, or is served
as another manifest than its digest names is one of them), the kit has none,
the registry serves another manifest for the kit's own digest, or the kit is
beyond the ceiling (each violation is printed); 2 usage,
configuration or I/O error, including a policy or baseline that cannot be
read and a registry that cannot be reached or refuses to list the kit's
referrers (401, 403).`,
		Example: `  # a kit signed in GitHub Actions by the release workflow of acme/kits
  kitsmith verify ghcr.io/acme/kits/tool:1.2.0 \
      --certificate-identity https://github.com/acme/kits/.github/workflows/release.yml@refs/heads/main \
      --certificate-oidc-issuer https://token.actions.githubusercontent.com

  # any workflow of the repository, on a tag push
  kitsmith verify ghcr.io/acme/kits/tool:1.2.0 \
      --certificate-identity-regexp '^https://github.com/acme/kits/' \
      --certificate-oidc-issuer https://token.actions.githubusercontent.com \
      --certificate-github-workflow-trigger push

  # a team's list of trusted signers, on a private instance, as JSON
  kitsmith verify --policy signers.json --trusted-root trusted_root.json \
      --format json registry.example.org/kits/tool:1.2.0

  # offline: a copied trusted root and an OCI layout
  kitsmith verify --trusted-root trusted_root.json --policy signers.json oci:out/tool

  # an admission policy: trusted signers and a permission ceiling, judged on
  # the effective form with a create-phase arg
  kitsmith verify --policy kits/policy.yaml --kit-arg apiHost=petstore3.swagger.io \
      ghcr.io/kitsmith/reshapr-inside:0.3.0

  # a kit signed with kitsmith sign --key, logged in a private instance's Rekor
  kitsmith verify --key cosign.pub --trusted-root trusted_root.json registry.example.org/kits/tool:1.2.0

  # air-gapped: signed with kitsmith sign --key --tlog-upload=false
  kitsmith verify --key cosign.pub --insecure-ignore-tlog oci:out/tool`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: refCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), ro.env, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// AddFlags registers verify's flags.
func (o *verifyOptions) AddFlags(cmd *cobra.Command) {
	o.registryFlags.AddFlags(cmd)
	o.formatFlag.AddFlags(cmd)
	o.verifierFlags.AddFlags(cmd)
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "print each rejection's whole text, not only its reason")
	cmd.Flags().StringArrayVar(&o.kitArgs, "kit-arg", nil, "create-phase kit arg value name=value the ceiling judges the effective form with (repeatable; needs a --policy with a ceiling)")
	cmd.Flags().StringVar(&o.platform, "platform", "", "judge only this platform's descriptor against the ceiling, e.g. linux/arm64 (default: every platform, and the index)")
}

// AddFlags registers the trust, policy and bypass flags on cmd.
func (o *verifierFlags) AddFlags(cmd *cobra.Command) {
	o.sigstoreFlags.AddFlags(cmd, false)
	f := cmd.Flags()
	p := &o.policy
	f.StringVar(&p.Identity, "certificate-identity", "", "the signer's identity (certificate SAN), exactly")
	f.StringVar(&p.IdentityRegexp, "certificate-identity-regexp", "", "a regular expression the signer's identity matches")
	f.StringVar(&p.Issuer, "certificate-oidc-issuer", "", "the OIDC issuer of the signer's identity, exactly")
	f.StringVar(&p.IssuerRegexp, "certificate-oidc-issuer-regexp", "", "a regular expression the OIDC issuer matches")
	f.StringVar(&p.GitHubWorkflowRepository, "certificate-github-workflow-repository", "", "GitHub Actions: the repository (OWNER/REPO) the workflow ran in")
	f.StringVar(&p.GitHubWorkflowRef, "certificate-github-workflow-ref", "", "GitHub Actions: the ref the workflow ran for, e.g. refs/tags/v1.2.0")
	f.StringVar(&p.GitHubWorkflowTrigger, "certificate-github-workflow-trigger", "", "GitHub Actions: the event that triggered the workflow, e.g. push")
	f.StringVar(&p.GitHubWorkflowName, "certificate-github-workflow-name", "", "GitHub Actions: the workflow's name")
	f.StringVar(&p.GitHubWorkflowSHA, "certificate-github-workflow-sha", "", "GitHub Actions: the commit the workflow ran on")
	f.StringVar(&o.policyFile, "policy", "", "admission policy file (signers, workflow claims, permission ceiling; docs/policy.md) or a list of trusted signers")
	f.StringVar(&o.key, "key", "", "verify signatures made with this PEM public key instead of certificates")
	f.StringVar(&o.predicateType, "predicate-type", "", "accept only statements of this predicate type (default: any, as cosign verify)")
	f.BoolVar(&p.RequireBundle, "require-bundle", false, "accept only Sigstore bundles: refuse legacy cosign signatures (the sha256-<hex>.sig tag)")
	f.BoolVar(&o.ignoreSCT, "insecure-ignore-sct", false, "bypass: accept certificates without an SCT from a CT log")
	f.BoolVar(&o.ignoreTlog, "insecure-ignore-tlog", false, "bypass: accept signatures without a transparency-log entry (a signed timestamp is then required)")
	_ = cmd.MarkFlagFilename("policy", "json", "yaml", "yml")
	_ = cmd.MarkFlagFilename("key", "pem", "pub")
}

func (o *verifyOptions) validate() error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	return o.verifierFlags.validate()
}

func (o *verifierFlags) validate() error {
	p := o.policy
	hasID := p.Identity != "" || p.IdentityRegexp != ""
	hasIssuer := p.Issuer != "" || p.IssuerRegexp != ""
	if hasID != hasIssuer {
		return &usageError{err: errors.New("a signer identity needs both --certificate-identity[-regexp] and --certificate-oidc-issuer[-regexp]"), hint: "See 'kitsmith verify --help'."}
	}
	if o.key == "" && !hasID && o.policyFile == "" {
		return &usageError{err: errors.New("no signer to accept: give --certificate-identity and --certificate-oidc-issuer (or their -regexp forms), --policy FILE, or --key"), hint: "See 'kitsmith verify --help'."}
	}
	if o.key != "" && hasID {
		return usageErrorf("--key verifies key-based signatures, which have no identity: drop the identity flags")
	}
	return nil
}

// policyOf returns the signature policy the flags and --policy FILE
// give, and the admission policy when the file is one (nil for sign's
// plain list of signers).
func (o *verifierFlags) policyOf() (sign.Policy, *review.Policy, error) {
	p := o.policy
	p.PredicateType = o.predicateType
	if o.policyFile == "" {
		return p, nil, nil
	}
	policy, err := applyPolicyFile(o.policyFile, &p)
	if err != nil {
		return sign.Policy{}, nil, err
	}
	hasID := p.Identity != "" || p.IdentityRegexp != ""
	switch {
	case o.key != "" && len(p.TrustedSigners) > 0:
		return sign.Policy{}, nil, usageErrorf("--key verifies key-based signatures, which have no identity: %s lists signers; use a policy with a ceiling only", o.policyFile)
	case o.key == "" && !hasID && len(p.TrustedSigners) == 0:
		return sign.Policy{}, nil, usageErrorf("no signer to accept: %s lists no signers; add signers, --certificate-identity and --certificate-oidc-issuer, or --key", o.policyFile)
	}
	return p, policy, nil
}

func (o *verifyOptions) run(ctx context.Context, e env, out, errOut io.Writer, ref string) error {
	p, policy, err := o.policyOf()
	if err != nil {
		return err
	}
	for _, w := range unanchoredWarnings(o.policy) {
		fmt.Fprintln(errOut, w)
	}
	kitArgs, err := parseKeyValues("--kit-arg", o.kitArgs)
	if err != nil {
		return err
	}
	ceiling := policy != nil && policy.Ceiling != nil
	if len(kitArgs) > 0 && !ceiling {
		return usageErrorf("--kit-arg only applies to a --policy that states a ceiling")
	}
	if o.platform != "" && !ceiling {
		return usageErrorf("--platform only applies to a --policy that states a ceiling")
	}
	if err := checkPlatform(o.platform); err != nil {
		return err
	}
	v, err := o.verifier(ctx, e)
	if err != nil {
		return err
	}
	kit, st, err := o.head(ctx, ref)
	if errors.Is(err, artifact.ErrDigestMismatch) {
		// The registry answers the kit's digest with another manifest: a
		// failed verification, as cosign has it, not an I/O error.
		var ue *usageError
		if errors.As(err, &ue) {
			err = ue.err
		}
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: not verified: %w", ref, err)}
	}
	if err != nil {
		return err
	}
	ao := admission.Options{Policy: p, KitArgs: kitArgs, Platform: o.platform, Artifact: o.artifactOptions()}
	if ceiling {
		ao.Ceiling = policy
	}
	res, err := admission.Verify(ctx, v, st, kit, ref, ao)
	if err != nil {
		return asUsage(err, openHint(err))
	}
	if werr := o.write(out, ref, res); werr != nil {
		return &exitError{code: exitUsage, err: werr}
	}
	if !res.OK() {
		return errFindings
	}
	return nil
}

// unanchoredWarnings warns of each unanchored SAN or issuer regexp given
// by flag: kept as cosign matches them, but named with the risk and the
// anchored form. Signer files (plain lists and admission policies) refuse
// unanchored expressions themselves (signer.Anchored).
func unanchoredWarnings(flags sign.Policy) []string {
	var out []string
	for _, r := range []struct{ flag, what, expr string }{
		{"--certificate-identity-regexp", "identity", flags.IdentityRegexp},
		{"--certificate-oidc-issuer-regexp", "issuer", flags.IssuerRegexp},
	} {
		if r.expr == "" {
			continue
		}
		if anchored, ok := sign.Unanchored(r.expr); ok {
			out = append(out, fmt.Sprintf("warning: %s %q is unanchored: it accepts any %s that merely contains a match (a repository, account or domain an attacker can name around it); to match the whole value, use %q",
				r.flag, r.expr, r.what, anchored))
		}
	}
	return out
}

// verificationRoot is the trusted root the instance flags select.
func (f *sigstoreFlags) verificationRoot(ctx context.Context, e env) (*root.TrustedRoot, error) {
	in, err := f.instance(e, false)
	if err != nil {
		return nil, err
	}
	tr, err := in.VerificationRoot(ctx)
	if err != nil {
		return nil, instanceError(err)
	}
	return tr, nil
}

// verifier builds the Verifier the trust flags select.
func (o *verifierFlags) verifier(ctx context.Context, e env) (*sign.Verifier, error) {
	var trust root.TrustedMaterial
	if o.key != "" {
		data, err := os.ReadFile(o.key)
		if err != nil {
			return nil, asUsage(fmt.Errorf("reading the public key: %w", err), "")
		}
		pub, err := sign.LoadPublicKey(data)
		if err != nil {
			return nil, asUsage(fmt.Errorf("%s: %w", o.key, err), "")
		}
		if trust, err = sign.PublicKeyTrust(pub); err != nil {
			return nil, asUsage(err, "")
		}
		if o.trustedRoot != "" {
			// The log entry and timestamps are checked against the
			// instance's logs and authorities.
			tr, err := o.verificationRoot(ctx, e)
			if err != nil {
				return nil, err
			}
			trust = root.TrustedMaterialCollection{trust, tr}
		}
	} else {
		tr, err := o.verificationRoot(ctx, e)
		if err != nil {
			return nil, err
		}
		trust = tr
	}
	var opts []sign.VerifierOption
	if o.ignoreSCT {
		opts = append(opts, sign.WithoutSCTUnsafe())
	}
	if o.ignoreTlog {
		opts = append(opts, sign.WithoutTlogUnsafe())
	}
	v, err := sign.NewVerifier(trust, opts...)
	if err != nil {
		return nil, asUsage(err, "")
	}
	return v, nil
}

// write prints the result, and the ceiling's verdict when there is one,
// as text or JSON.
func (o *verifyOptions) write(out io.Writer, ref string, r *admission.Result) error {
	res, ceiling := r.Signatures, r.Ceiling
	name := ref
	if !strings.Contains(ref, res.Subject.Digest.String()) {
		name = ref + " (" + res.Subject.Digest.String() + ")"
	}
	if o.json() {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Document(ref))
	}
	// Identities, reasons and grants come from certificates and the kit:
	// escaped, so that none can drive the terminal.
	w := textsafe.NewWriter(out)
	if err := writeSignatures(w, name, res, o.verbose); err != nil {
		return err
	}
	if ceiling != nil {
		if err := review.WriteCeiling(w, ceiling, review.FormatText); err != nil {
			return err
		}
	}
	return w.Flush()
}

// writeSignatures prints each signature's verdict as text, and how many
// referrers were examined; verbose adds each rejection's whole text.
func writeSignatures(out io.Writer, name string, res *sign.Result, verbose bool) error {
	accepted := len(res.Accepted())
	switch {
	case len(res.Signatures) == 0:
		fmt.Fprintf(out, "%s: no Sigstore signature found\n", name)
	case accepted > 0:
		fmt.Fprintf(out, "%s: verified, %d of %d signature(s) satisfy the policy\n", name, accepted, len(res.Signatures))
	default:
		fmt.Fprintf(out, "%s: not verified, none of %d signature(s) satisfies the policy\n", name, len(res.Signatures))
	}
	for _, s := range res.Signatures {
		signer := signerText(s)
		if !s.Accepted {
			fmt.Fprintf(out, "  rejected %s%s: %s\n", s.Referrer, signer, s.Reason)
			if verbose && s.Detail != "" {
				fmt.Fprintf(out, "    detail: %s\n", s.Detail)
			}
			continue
		}
		fmt.Fprintf(out, "  accepted %s%s", s.Referrer, signer)
		for _, t := range s.Timestamps {
			fmt.Fprintf(out, ", %s %s", t.Source, t.Time.Format("2006-01-02T15:04:05Z"))
		}
		if s.LogIndex != nil {
			fmt.Fprintf(out, ", log index %d", *s.LogIndex)
		}
		fmt.Fprintln(out)
	}
	_, err := fmt.Fprintln(out, referrerCounts(res.Referrers))
	return err
}

// signerText names a signature's signer, " " first, or "" when the
// referrer was rejected before its signer was read.
func signerText(s sign.Signature) string {
	var signer string
	switch {
	case s.Identity != "":
		signer = " " + s.Identity
	case s.KeyHint != "":
		signer = " key " + s.KeyHint
	}
	if s.Issuer != "" {
		signer += " (issuer " + s.Issuer + ")"
	}
	// An attestation (SLSA provenance, say) over the same digest is a
	// signature by its signer too; say which bundles are attestations.
	if s.PredicateType != "" && s.PredicateType != sign.CosignSignPredicateType {
		signer += " [attestation " + s.PredicateType + "]"
	}
	if s.Kind == "legacy" {
		signer += " [legacy cosign signature]"
	}
	return signer
}

// referrerCounts says how many referrers were listed, examined, skipped
// and left unread.
func referrerCounts(c sign.ReferrerCounts) string {
	line := fmt.Sprintf("  referrers: %d listed, %d examined, %d skipped (not signatures)", c.Listed, c.Examined, c.Skipped)
	if c.NotExamined > 0 {
		line += fmt.Sprintf(", %d not examined (over the examination bounds)", c.NotExamined)
	}
	if c.Truncated {
		line += "; the registry lists more than the listing bound, which were not seen"
	}
	return line
}
