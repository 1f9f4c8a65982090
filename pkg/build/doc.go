// Package build turns a kit source (a *spec.Kit) into the published kit
// image SPEC-v3 §9–§10 define, checks it with package artifact, and exports
// it only when the check passes.
//
// Build picks one of three pipelines from the kit:
//
//   - A declaration-only mixin (no recipe) is assembled in-process with
//     go-containerregistry: per platform, scratch plus one layer holding the
//     staged sources, a config stating only the platform, OCI media types,
//     and the kit annotations on every manifest and on the image index. No
//     BuildKit daemon is needed.
//   - A kit with a content recipe (a companion or dockerfile: recipe, an
//     inline build:, or a "# kit:" comment descriptor) is solved through a
//     Solver (a BuildKit client) with an in-process gateway build function:
//     kitsmith is the frontend and calls BuildKit's built-in dockerfile.v0
//     (one multi-platform call, with a result per platform; the options the
//     reference frontend drops are dropped). A workload exports its image
//     as built; a mixin
//     exports its overlay (a FROM scratch final stage as built, otherwise
//     the llb.Diff against a digest-pinned base) with an image config
//     reduced to what the recipe stated. The staged sources are a layer of
//     their own on top, and workloads gain the deb/ and apk/ provides
//     derived from their package databases.
//   - A kind: set resolves every listed kit to a digest in its registry,
//     merges their declarations (SPEC-v3 §9.5) and reuses their layer blobs
//     as they are, in dependency order, in-process.
//
// Every build is reproducible: timestamps come from Options.SourceDateEpoch
// (0 when unset), so the same inputs give the same index digest.
// SourceDateEpoch resolves it as kitsmith build does (the environment's
// value, else the kit's last git commit), so that a program gets the
// command's digest. Progress
// is reported as Event values on a channel the caller passes and Build
// closes; BuildKit's own progress arrives converted into progress.Status,
// kitsmith's type, so that the progress package links no build system. Outputs (an OCI layout, an OCI archive, registry pushes) are
// written from the checked artifact only, through temporary paths renamed
// into place, so a failed build or check leaves nothing behind.
package build
