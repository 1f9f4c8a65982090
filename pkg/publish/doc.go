// Package publish is kitsmith's release pipeline: it takes kit sources to
// signed, tagged kit images in a registry, in an order that never lets a
// consumer see a tag pointing at an unsigned or unchecked kit.
//
// For every kit, Run goes through the stages
//
//	validate → lint → build → check → [policy] → push → sign → attest → verify → tag
//
// validating and linting the sources, building every platform and checking
// the image, pushing every blob and manifest by digest, signing the index,
// attaching a signed SLSA v1 provenance attestation as a second referrer,
// verifying the signature by reading it back from the registry against the
// identity it was made with, and only then writing the tag. A failure at
// any stage stops that kit, leaves no tag, and is reported as a
// *StageError naming the stage; what was already pushed by digest stays
// (it is invisible without a tag) and is listed in the kit's result.
//
// A kind: set is resolved at validate with the kits it lists, read from
// their registries (pkg/review's ResolveSet: closed requires, no
// conflicts, one provider per name, the merge rules of sets), so a set a
// runtime would refuse fails there with every problem named. With
// Options.Policy, the policy stage judges each built kit against the
// admission policy's permission ceiling before anything is pushed.
//
// publish is the only package that joins lint, build, artifact, sign and
// review. It reaches them through small interfaces (Builder, Registry, Signer,
// Verifier) so the pipeline's order and failure semantics can be tested
// with in-process fakes. The default Builder is build.Build on Run's
// solver; NewRegistry, NewSigner and NewVerifier adapt pkg/artifact and
// pkg/sign.
package publish
