package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"

	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// SLSAPredicateType is the predicate type of the provenance attestation
// (what cosign verify-attestation --type slsaprovenance1 selects).
const SLSAPredicateType = "https://slsa.dev/provenance/v1"

// BuildType is the SLSA buildType of a kit built by kitsmith: its
// externalParameters are the kit source and the platforms.
const BuildType = "https://github.com/kitsmith/kitsmith/blob/main/README.md#provenance"

// Provenance is the SLSA v1 provenance predicate Run attests, in its JSON
// shape (https://slsa.dev/spec/v1.0/provenance).
type Provenance struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition is what was built, from what.
type BuildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   ExternalParameters   `json:"externalParameters"`
	InternalParameters   InternalParameters   `json:"internalParameters"`
	ResolvedDependencies []ResourceDescriptor `json:"resolvedDependencies,omitempty"`
}

// ExternalParameters are the inputs a user controls: the kit source and
// the platforms.
type ExternalParameters struct {
	// Source is where the kit came from.
	Source Source `json:"source"`
	// Platforms are the platforms built.
	Platforms []string `json:"platforms"`
	// BuildArgs are the build-phase kit args given, if any.
	BuildArgs map[string]string `json:"buildArgs,omitempty"`
}

// Source is a kit's source: the git repository, commit and the
// descriptor's path in it. Repository and Commit are "" outside a git
// work tree; Path is then the path as given.
type Source struct {
	Repository string `json:"repository,omitempty"`
	Commit     string `json:"commit,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Path       string `json:"path"`
}

// InternalParameters are the build's own settings.
type InternalParameters struct {
	// Route is how kitsmith built the kit (in-process, buildkit, set).
	Route string `json:"route"`
	// SourceDateEpoch is the timestamp every file in the image carries.
	SourceDateEpoch *int64 `json:"sourceDateEpoch,omitempty"`
}

// ResourceDescriptor is an SLSA resource: a resolved input.
type ResourceDescriptor struct {
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
	Name   string            `json:"name,omitempty"`
}

// RunDetails is who built it, when.
type RunDetails struct {
	Builder  SLSABuilder `json:"builder"`
	Metadata RunMetadata `json:"metadata"`
}

// SLSABuilder is the SLSA builder: its ID and kitsmith's version.
type SLSABuilder struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// RunMetadata is the run's invocation ID and times.
type RunMetadata struct {
	InvocationID string    `json:"invocationId,omitempty"`
	StartedOn    time.Time `json:"startedOn"`
	FinishedOn   time.Time `json:"finishedOn"`
}

// fromDigestRE finds base images pinned by digest in a recipe.
var fromDigestRE = regexp.MustCompile(`(?im)^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)@(sha256):([0-9a-f]{64})`)

// provenance builds the predicate for kit k built as res.
func provenance(k *spec.Kit, res *build.Result, bo build.Options, src Source, po ProvenanceOptions, started, finished time.Time) (json.RawMessage, error) {
	ver := po.Version
	if ver == "" {
		ver = version.Get().Version
	}
	id := po.BuilderID
	if id == "" {
		id = "https://github.com/kitsmith/kitsmith/releases/tag/" + ver
	}
	plats := make([]string, 0, len(res.Manifests))
	for _, m := range res.Manifests {
		plats = append(plats, m.Platform)
	}
	p := Provenance{
		BuildDefinition: BuildDefinition{
			BuildType:          BuildType,
			ExternalParameters: ExternalParameters{Source: src, Platforms: plats, BuildArgs: bo.BuildArgs},
			InternalParameters: InternalParameters{Route: string(res.Route), SourceDateEpoch: bo.SourceDateEpoch},
		},
		RunDetails: RunDetails{
			Builder:  SLSABuilder{ID: id, Version: map[string]string{"kitsmith": ver}},
			Metadata: RunMetadata{InvocationID: po.InvocationID, StartedOn: started.UTC(), FinishedOn: finished.UTC()},
		},
	}
	if src.Commit != "" {
		r := ResourceDescriptor{Digest: map[string]string{"gitCommit": src.Commit}, Name: "source"}
		if src.Repository != "" {
			r.URI = "git+" + src.Repository
		}
		p.BuildDefinition.ResolvedDependencies = append(p.BuildDefinition.ResolvedDependencies, r)
	}
	p.BuildDefinition.ResolvedDependencies = append(p.BuildDefinition.ResolvedDependencies, resolvedInputs(k)...)
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the provenance: %w", err)
	}
	return b, nil
}

// resolvedInputs lists the kit's inputs pinned by digest: base images of
// its recipe and the kits a set lists.
func resolvedInputs(k *spec.Kit) []ResourceDescriptor {
	var out []ResourceDescriptor
	if k.Recipe != nil {
		for _, m := range fromDigestRE.FindAllSubmatch(k.Recipe.Text, -1) {
			out = append(out, ResourceDescriptor{URI: "docker://" + string(m[1]), Digest: map[string]string{string(m[2]): string(m[3])}, Name: "base-image"})
		}
	}
	if k.Descriptor != nil {
		for _, kr := range k.Descriptor.Kits {
			r := ResourceDescriptor{URI: "docker://" + kr.Ref, Name: "kit"}
			if alg, hex, ok := strings.Cut(kr.Digest, ":"); ok {
				r.Digest = map[string]string{alg: hex}
			}
			out = append(out, r)
		}
	}
	return out
}

// gitSource reads the kit's source from the git work tree holding dir with
// go-git: the origin URL, HEAD's commit and branch, and the descriptor's
// path from the work tree's root. Outside a work tree it returns the path
// alone.
func gitSource(dir, descriptor string) (Source, error) {
	src := Source{Path: filepath.ToSlash(descriptor)}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return src, err
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return src, nil
	}
	if err != nil {
		return src, fmt.Errorf("reading the git repository of %s: %w", dir, err)
	}
	head, err := repo.Head()
	if err != nil {
		return src, fmt.Errorf("reading HEAD of the git repository of %s: %w", dir, err)
	}
	src.Commit = head.Hash().String()
	if head.Name().IsBranch() || head.Name().IsTag() {
		src.Ref = head.Name().String()
	}
	if rem, err := repo.Remote("origin"); err == nil && len(rem.Config().URLs) > 0 {
		src.Repository = rem.Config().URLs[0]
	}
	wt, err := repo.Worktree()
	if err != nil {
		return src, nil // a bare repository: no path within a work tree
	}
	root := wt.Filesystem.Root()
	if absDesc, err := filepath.Abs(descriptor); err == nil {
		if rel, err := filepath.Rel(root, absDesc); err == nil && !strings.HasPrefix(rel, "..") {
			src.Path = filepath.ToSlash(rel)
		}
	}
	return src, nil
}
