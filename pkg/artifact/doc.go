// Package artifact is kitsmith's one OCI layer: it reads and writes kit
// images and their referrers, and holds the kit image model (annotations,
// staged sources, attestation manifests). The conformance checks that
// judge a kit image against the v3 specification's artifact rules, as the
// specification's conformance kit (kit-tck validate) does, are in
// package conform (pkg/artifact/conform).
//
// One reference grammar (ParseReference, Ref) serves reading and writing:
// "oci:DIR[:tag]", "oci-archive:FILE[:tag]" and REGISTRY/REPO[:tag|@digest].
// Write writes an artifact to any of them. A Target (NewTarget, or a
// Client's Target to share one transport among several) is a place kits
// live, a registry repository or an OCI layout, with what publishing,
// signing and a build's outputs need of it: Head, Push (every blob and
// manifest by digest, no tag), Tag, and Referrers, Referrer and
// PushReferrer for signatures and attestations, through the OCI referrers
// API or the referrers tag schema where a registry has none, or in the
// layout's index.json. The package functions Push, Tag and Head are the
// same steps on a target of their own. Every operation takes
// the same Options (keychain, transport, insecure registry, user agent,
// timeout) and classifies registry failures the same way (ErrNotFound,
// ErrUnauthorized, ErrDenied, ErrUnreachable); a reference or destination
// that cannot be used as given is a *DestinationError.
//
// A kit image is read with Open from a registry reference
// (registry/repo:tag or @sha256:…), an OCI layout directory
// ("oci:DIR[:tag]") or an OCI archive ("oci-archive:FILE[:tag]"), or wrapped
// from an in-memory go-containerregistry index or image with FromIndex and
// FromImage, as a build does before it exports anything.
//
// Inspect reports what a consumer sees: digests, media types, platforms,
// annotations (falling back from the index to a platform manifest, SPEC-v3
// §9.3), the decoded descriptor, its capabilities and permission surface,
// and the sources staged under /usr/share/sandbox/kit. A KitResolver
// (RegistryResolver, or an artifact's own Resolver) opens the kits a
// merged set lists, for conform's merged-set check.
//
// The package also holds what a builder needs to produce a conforming
// image: the annotation keys and Annotations (SPEC-v3 §7.2–7.3).
//
// Every read is bounded: manifests (also while a registry sends them),
// configs and the few files a check reads from the layers are capped,
// layers are streamed and never held in memory, verified to their end
// against their digests, sizes and diff_ids, and one memory budget covers
// what a check keeps of them. Redirects, retries and each request's time
// are bounded; FIFOs and devices are never opened for reading; archive
// entries that would escape the archive are refused. Nothing in
// the package reads environment variables; registry credentials come from
// the keychain given to WithKeychain (authn.DefaultKeychain by default).
package artifact
