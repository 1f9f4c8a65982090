package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type publishOptions struct {
	builderFlags
	registryFlags
	progressFlag
	publishSigningFlags
	tag          string
	tagTemplate  string
	failLevel    string
	platforms    []string
	buildArgs    []string
	noCache      bool
	jobs         int
	force        bool
	unsigned     bool
	recursive    bool
	metadataFile string
	policyFile   string
}

func newPublishCmd(ro *rootOptions) *cobra.Command {
	o := &publishOptions{}
	cmd := &cobra.Command{
		Use:   "publish [flags] PATH...",
		Short: "Validate, lint, build, check, push, sign, attest, verify and only then tag kits",
		Long: `Publish is the release pipeline: for every kit it validates the descriptor,
lints it (--fail-level), builds every platform, checks the image, pushes every
blob and manifest by digest with no tag, signs the index (keyless by default),
attaches a signed SLSA v1 provenance attestation as a second referrer,
verifies the signature by reading it back from the registry against the
identity it was just made with, and only then writes the tag. A consumer never
sees a tag pointing at an unsigned or unchecked kit.

A failure at any stage leaves no tag, names the stage and why, and exits 1;
what was pushed by digest stays (it is invisible without a tag) and is listed.
One rule for the registry itself: when it cannot be reached, refuses the
credentials (401) or refuses the operation (403: a read-only repository, a
protected tag), publish exits 2 at whichever stage it happens, the tag write
included, as every command does.
An existing tag pointing at another digest is refused unless --force; the
same digest under the same tag is a no-op that says so. The tag is checked
again just before it is written, written conditionally where the registry
honours If-Match / If-None-Match, and read back: when another publish wrote
it at the same time, the run fails at the tag stage (exit 1) naming both
digests, so that its report and outputs never name a digest the tag does not
hold. A registry without conditional writes cannot stop a later writer from
moving the tag afterwards; that writer's own read-back names the tag's digest.

A kind: set is resolved at validate with the kits it lists, read from their
registries, as a runtime will judge it: a set whose kits conflict, leave a
requirement open or break a merge rule fails there, every problem named.
With --policy FILE (an admission policy, docs/policy.md), each built kit must
stay within the policy's permission ceiling before anything is pushed: a
grant beyond it fails the stage "policy", naming the grant, its declaration
(file:line:col) and the rule, and leaves no tag. The policy's signers are
not consulted here (publish verifies the identity it signs with); check them
with 'kitsmith verify --policy FILE' afterwards.

Several kits: --tag-template names each kit's reference from its descriptor
({stem}, {name} = the kit directory, {version}, {kind}); kits are published
concurrently (--jobs) and one failing kit does not stop the others.

Signing takes the same flags as 'kitsmith sign': the identity token from
--identity-token, --identity-token-file, SIGSTORE_ID_TOKEN, GitHub Actions
(permissions: id-token: write) or a sign-in at a terminal; public-good
Sigstore through TUF unless --trusted-root and --signing-config name a
private one; --key for a key instead of an identity. On GitHub Actions the
job summary (GITHUB_STEP_SUMMARY) and the step outputs digest and ref
(GITHUB_OUTPUT) are written too.

Exit status: 0 every kit published (or already was); 1 a kit failed at a
stage (lint findings, failed checks, a ceiling violation, a signature that
did not verify, a tag another run moved); 2 usage, configuration or I/O
error, including a registry that cannot be reached or refuses the
credentials or the operation.`,
		Example: `  # one kit, keyless on GitHub Actions or with SIGSTORE_ID_TOKEN
  kitsmith publish --tag registry.example.org/kits/gh:1.2.0 kits/gh

  # every kit of the repository, named from their descriptors
  kitsmith publish kits/*/ --tag-template 'registry.example.org/kits/{stem}:{version}'

  # with a key instead of an identity and no transparency log, signing every platform manifest too
  kitsmith publish --key cosign.key --tlog-upload=false --recursive -t registry.example.org/kits/gh:1.2.0 kits/gh

  # a private Sigstore
  kitsmith publish --signing-config signing_config.json --trusted-root trusted_root.json \
    --identity-token "$TOKEN" -t registry.example.org/kits/gh:1.2.0 kits/gh

  # a release gate: nothing beyond the repository's permission ceiling is pushed
  kitsmith publish --policy kits/policy.yaml kits/*/ --tag-template 'ghcr.io/acme/{stem}:{version}'

  # no signature, said out loud in the summary
  kitsmith publish --unsigned -t 127.0.0.1:5000/kits/gh:dev kits/gh`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), ro, cmd.OutOrStdout(), cmd.ErrOrStderr(), args)
		},
	}
	o.builderFlags.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	o.progressFlag.AddFlags(cmd)
	o.publishSigningFlags.AddFlags(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.tag, "tag", "t", "", "reference to publish one kit to, e.g. registry.example.org/kits/gh:1.2.0")
	f.StringVar(&o.tagTemplate, "tag-template", "", "reference for each kit: {stem}, {name}, {version}, {kind}, e.g. 'registry.example.org/kits/{stem}:{version}'")
	f.StringVar(&o.failLevel, "fail-level", "error", "lowest lint severity that stops a kit: error, warning or info")
	f.StringSliceVar(&o.platforms, "platform", build.DefaultPlatforms(), "platforms to build (comma-separated or repeated)")
	f.StringArrayVar(&o.buildArgs, "build-arg", nil, "build-phase kit arg value name=value, for every kit (repeatable)")
	f.BoolVar(&o.noCache, "no-cache", false, "solve recipes without BuildKit's cache")
	f.IntVar(&o.jobs, "jobs", 0, "kits built at once, pushing and signing overlapping across all built kits (default: the number of CPUs)")
	f.BoolVar(&o.force, "force", false, "move an existing tag that points at another digest")
	f.BoolVar(&o.unsigned, "unsigned", false, "publish without signing, provenance or verification (the summary says so)")
	f.BoolVar(&o.recursive, "recursive", false, "also sign every platform manifest")
	f.StringVar(&o.metadataFile, "metadata-file", "", "write what was published (digests, referrers, signer, timings) as JSON to this file")
	_ = cmd.RegisterFlagCompletionFunc("fail-level", cobra.FixedCompletions([]string{"error", "warning", "info"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("platform", platformCompletion)
	f.StringVar(&o.policyFile, "policy", "", "admission policy file whose permission ceiling every kit must stay within before it is pushed (docs/policy.md)")
	_ = cmd.MarkFlagFilename("metadata-file", "json")
	_ = cmd.MarkFlagFilename("policy", "yaml", "yml", "json")
	return cmd
}

// options checks the flags and turns them into publish.Options (without
// the signer, which needs the context).
func (o *publishOptions) options(ro *rootOptions) (publish.Options, error) {
	var po publish.Options
	if err := o.builderFlags.validate(); err != nil {
		return po, err
	}
	if err := o.progressFlag.validate(); err != nil {
		return po, err
	}
	if err := checkMetadataDest(o.metadataFile); err != nil {
		return po, err
	}
	sev, err := lint.ParseSeverity(o.failLevel)
	if err != nil {
		return po, usageErrorf("--fail-level must be error, warning or info, not %q", o.failLevel)
	}
	if o.tag == "" && o.tagTemplate == "" { // before the signer reaches out to Sigstore
		return po, usageErrorf("publish needs --tag REF for one kit, or --tag-template 'REGISTRY/kits/{stem}:{version}' for several")
	}
	if o.tag != "" {
		if err := publish.CheckReference(o.tag); err != nil {
			return po, usageErrorf("--tag: %v", err)
		}
	}
	if o.jobs < 0 {
		return po, usageErrorf("--jobs must be at least 1 (or 0 for the number of CPUs), not %d", o.jobs)
	}
	args, err := parseKeyValues("--build-arg", o.buildArgs)
	if err != nil {
		return po, err
	}
	po = publish.Options{
		Tag: o.tag, TagTemplate: o.tagTemplate, FailLevel: sev, Jobs: o.jobs,
		Force: o.force, Unsigned: o.unsigned, Recursive: o.recursive,
		Build:      build.Options{Platforms: o.platforms, BuildArgs: args, NoCache: o.noCache, InsecureRegistry: o.insecure},
		Registry:   publish.NewRegistry(o.artifactOptions()...),
		Provenance: githubProvenance(ro.env),
	}
	if o.policyFile != "" {
		if po.Policy, err = loadPolicy(o.policyFile); err != nil {
			return po, err
		}
		if po.Policy.Ceiling == nil {
			return po, usageErrorf("--policy %s states no ceiling for publish to apply; its signers are checked by kitsmith verify --policy", o.policyFile)
		}
	}
	// Per kit, publish.Run resolves the rest as build.SourceDateEpoch does.
	if po.Build.SourceDateEpoch, err = build.ParseSourceDateEpoch(ro.env["SOURCE_DATE_EPOCH"]); err != nil {
		return po, usageErrorf("%v", err)
	}
	return po, nil
}

// githubProvenance names the builder and the run on GitHub Actions: the
// workflow file at its ref, and the run's URL.
func githubProvenance(e env) publish.ProvenanceOptions {
	if e["GITHUB_ACTIONS"] != "true" || e["GITHUB_WORKFLOW_REF"] == "" {
		return publish.ProvenanceOptions{}
	}
	server := e["GITHUB_SERVER_URL"]
	if server == "" {
		server = "https://github.com"
	}
	p := publish.ProvenanceOptions{BuilderID: server + "/" + e["GITHUB_WORKFLOW_REF"]}
	if e["GITHUB_REPOSITORY"] != "" && e["GITHUB_RUN_ID"] != "" {
		p.InvocationID = fmt.Sprintf("%s/%s/actions/runs/%s/attempts/%s", server, e["GITHUB_REPOSITORY"], e["GITHUB_RUN_ID"], e["GITHUB_RUN_ATTEMPT"])
	}
	return p
}

func (o *publishOptions) run(ctx context.Context, ro *rootOptions, out, errOut io.Writer, paths []string) error {
	po, err := o.options(ro)
	if err != nil {
		return err
	}
	if !o.unsigned {
		if po.Signer, po.Verifier, err = o.publishSigningFlags.signer(ctx, ro.env, errOut); err != nil {
			return err
		}
	}
	kits := make([]*spec.Kit, 0, len(paths))
	for _, p := range paths {
		k, err := spec.LoadPath(p)
		if err != nil {
			return asUsage(err, "")
		}
		kits = append(kits, k)
	}
	solver := o.newSolver(ro.env)
	defer solver.close()
	events := make(chan progress.Event)
	wait, err := o.progressFlag.start(ctx, errOut, events)
	if err != nil {
		return err
	}
	res, err := publish.Run(ctx, solver, kits, po, events)
	wait()
	if res == nil {
		return usageErrorf("%v", err)
	}
	if werr := o.report(ro.env, out, res); werr != nil {
		return werr
	}
	if failed := res.Failed(); len(failed) > 0 {
		names, errs := make([]string, len(failed)), make([]error, len(failed))
		for i, k := range failed {
			names[i], errs[i] = fmt.Sprintf("%s at %s", k.Kit, k.FailedStage()), k.Err
		}
		err := fmt.Errorf("%d of %d kit%s not published, no tag written for %s: %s",
			len(failed), len(res.Kits), plural(len(res.Kits)), pronoun(len(failed)), strings.Join(names, "; "))
		if hint := accessHint(errs); hint != "" {
			return asUsage(err, hint) // the registry could not be used: exit 2, as in every command
		}
		if errors.Is(errors.Join(errs...), publish.ErrTagExists) {
			err = fmt.Errorf("%w\nhint: --force moves an existing tag to the new digest", err)
		}
		return &exitError{code: exitFindings, err: err}
	}
	return nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// report writes the summary, the metadata file and, on GitHub Actions,
// the job summary and step outputs.
func (o *publishOptions) report(e env, out io.Writer, res *publish.Result) error {
	if err := publish.WriteSummary(out, res); err != nil {
		return usageErrorf("writing the summary: %w", err)
	}
	if o.metadataFile != "" {
		var b bytes.Buffer
		if err := publish.WriteMetadata(&b, res); err != nil {
			return usageErrorf("--metadata-file: %w", err)
		}
		if err := writeFileAtomic(o.metadataFile, b.Bytes(), 0o644); err != nil {
			return usageErrorf("--metadata-file: %w", err)
		}
	}
	if e["GITHUB_ACTIONS"] != "true" {
		return nil
	}
	for _, f := range []struct {
		env   string
		write func(io.Writer, *publish.Result) error
	}{{"GITHUB_STEP_SUMMARY", publish.WriteMarkdown}, {"GITHUB_OUTPUT", publish.WriteGitHubOutput}} {
		if path := e[f.env]; path != "" {
			if err := appendFile(path, res, f.write); err != nil {
				return usageErrorf("writing %s: %w", f.env, err)
			}
		}
	}
	return nil
}

// appendFile appends what write renders to the file at path, as GitHub
// Actions expects of its summary and output files.
func appendFile(path string, res *publish.Result, write func(io.Writer, *publish.Result) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	err = write(f, res)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
