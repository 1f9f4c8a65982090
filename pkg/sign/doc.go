// Package sign signs a kit's digest with Sigstore and verifies such
// signatures, in the shape cosign v3 writes and reads them.
//
// What is signed is exactly what `cosign sign` signs for an image: a DSSE
// envelope of payload type application/vnd.in-toto+json holding an in-toto
// Statement v1 whose only subject is the kit's digest and whose predicate
// type is https://sigstore.dev/cosign/sign/v1 (Signer.Sign), or any other
// predicate (Signer.Attest). The result is a Sigstore bundle v0.3.
//
// Attach stores a bundle the way cosign does: as an OCI 1.1 referrer of the
// kit with artifact type application/vnd.dev.sigstore.bundle.v0.3+json, the
// OCI empty config and one layer holding the bundle. Verifier.Verify lists
// the kit's referrers through a ReferrerStore, trusting no registry-side
// filter, verifies every bundle against trusted material and applies a
// Policy of accepted signer identities.
//
// The package reads no environment variable and prints nothing: identity
// tokens come from a TokenSource the caller chooses, service URLs and
// trusted material from the caller (ServicesFromSigningConfig,
// LoadTrustedRoot, PublicGood), or resolved as kitsmith resolves them by
// an Instance: a private instance's files, else public-good Sigstore's
// trust through TUF, with single services overridden. A token never
// appears in an error.
//
// Package signtest is an in-process Sigstore (certificate authority,
// timestamp authority, Fulcio endpoint, memory ReferrerStore) for tests of
// code that signs or verifies.
package sign
