// Package testsvc holds kitsmith's test services and their end-to-end
// tests; it has no code of its own. Its subpackages:
//
//   - stack: what integration tests use, the running local Sigstore stack
//     (trust files, service URLs, ID tokens), read from the environment
//     that scripts/services.sh env prints;
//   - oidcissuer: the test OIDC issuer the stack's Fulcio trusts;
//   - trustroot: trusted_root.json and signing_config.json from the
//     running services.
//
// The tests here (KITSMITH_INTEGRATION=1, run by scripts/test.sh) prove
// the stack and its trust files without kitsmith's own sign package: a
// DSSE signature made with sigstore-go against Fulcio, the TSA and Rekor
// v2 named by the signing config verifies against the generated trusted
// root, and cosign signs and verifies with the same files.
package testsvc
