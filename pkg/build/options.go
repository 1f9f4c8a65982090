package build

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/platforms"
	"github.com/google/go-containerregistry/pkg/authn"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// DefaultPlatforms returns the platforms built when Options.Platforms is
// empty: linux/amd64 and linux/arm64.
func DefaultPlatforms() []string { return []string{"linux/amd64", "linux/arm64"} }

// Options configures Build. The zero value builds for DefaultPlatforms with
// SOURCE_DATE_EPOCH 0, exports nothing (build and check only) and uses the
// docker credential store for registries.
type Options struct {
	// Platforms are the platforms to build ("linux/amd64", "linux/arm64/v8"),
	// normalised and deduplicated, in the order given. Empty means
	// DefaultPlatforms. The index always lists one manifest per platform,
	// even for a single one.
	Platforms []string
	// BuildArgs are values for the kit's build-phase args, by kit arg name
	// (not by the recipe's ARG name). An undeclared name or a create-phase
	// arg is an error; args without a value take their default.
	BuildArgs map[string]string
	// SourceDateEpoch is the time, in seconds since the Unix epoch, every
	// timestamp in the image is set to. Nil means 0 and no
	// org.opencontainers.image.created annotation; a value also sets that
	// annotation (RFC 3339). It reaches the recipe as the SOURCE_DATE_EPOCH
	// build arg.
	SourceDateEpoch *int64
	// NoCache solves the recipe without BuildKit's cache.
	NoCache bool
	// Provenance adds BuildKit's SLSA provenance attestation
	// (attest:provenance=mode=max) to the index. It needs a Solver, also for
	// a declaration-only kit, which is then built through BuildKit (its
	// digest differs from the in-process build's).
	Provenance bool
	// Outputs are where the checked artifact is written. None means build
	// and check only.
	Outputs []Output
	// InsecureRegistry allows plain HTTP and unverified TLS for every
	// registry named in Outputs or in a set's kits. Loopback registries
	// (localhost, 127.0.0.0/8, ::1) use plain HTTP without it. It cannot
	// be combined with Transport, which decides TLS itself.
	InsecureRegistry bool
	// Keychain authenticates to registries. Nil means authn.DefaultKeychain:
	// the docker config file, its credential store and helpers.
	Keychain authn.Keychain
	// Transport carries registry requests: pushes, and the reads of a
	// set's kits and of the kits a merged set is checked against. Nil means
	// artifact's default transport (go-containerregistry's, with connect,
	// header and idle timeouts).
	Transport http.RoundTripper
	// BuiltBy is recorded in the built-by annotation. Nil means kitsmith's
	// own name, version and revision.
	BuiltBy *artifact.BuiltBy
	// TempDir is where the artifact is exported before it is checked and
	// written to the outputs. Empty means os.TempDir().
	TempDir string
}

// OutputType is the kind of an Output.
type OutputType string

// Output types.
const (
	// OutputOCI writes an OCI image layout directory.
	OutputOCI OutputType = "oci"
	// OutputOCIArchive writes a tar archive of an OCI image layout.
	OutputOCIArchive OutputType = "oci-archive"
	// OutputRegistry pushes to a registry reference.
	OutputRegistry OutputType = "registry"
)

// Output is one destination of the built artifact.
type Output struct {
	// Type selects the writer.
	Type OutputType
	// Dest is a directory (OutputOCI), a file (OutputOCIArchive) or an
	// image reference such as registry.example/kits/gh:1.2 (OutputRegistry).
	Dest string
	// Tag, for OutputOCI and OutputOCIArchive, is recorded as the
	// org.opencontainers.image.ref.name of the index in the layout; empty
	// means none.
	Tag string
}

// String returns the output as ParseOutput reads it ("oci:DIR[:TAG]",
// "oci-archive:FILE[:TAG]", "registry:REF").
func (o Output) String() string {
	if o.Type == OutputRegistry {
		return string(o.Type) + ":" + o.Dest
	}
	return o.Reference()
}

// Reference returns the output as artifact.Write takes it: the same
// grammar artifact.Open reads.
func (o Output) Reference() string {
	switch o.Type {
	case OutputOCI:
		return artifact.Ref{Kind: artifact.OriginLayout, Path: o.Dest, Tag: o.Tag}.String()
	case OutputOCIArchive:
		return artifact.Ref{Kind: artifact.OriginArchive, Path: o.Dest, Tag: o.Tag}.String()
	}
	return o.Dest
}

// ParseOutput parses "oci:DIR[:TAG]", "oci-archive:FILE[:TAG]" or
// "registry:REF". Layouts and archives follow artifact.ParseReference, so
// "oci:out/gh:1.2.0" is directory out/gh with tag 1.2.0, as
// artifact.Open reads it. A malformed output is an
// *artifact.DestinationError.
func ParseOutput(s string) (Output, error) {
	typ, dest, ok := strings.Cut(s, ":")
	if !ok || dest == "" {
		return Output{}, &artifact.DestinationError{Ref: s, Reason: "is not an output: write oci:DIR or oci-archive:FILE"}
	}
	o := Output{Type: OutputType(typ), Dest: dest}
	if o.Type == OutputOCI || o.Type == OutputOCIArchive {
		r, err := artifact.ParseReference(s)
		if err != nil {
			return Output{}, err
		}
		o.Dest, o.Tag = r.Path, r.Tag
	}
	if err := o.validate(); err != nil {
		return Output{}, err
	}
	return o, nil
}

func (o Output) validate() error {
	switch o.Type {
	case OutputOCI, OutputOCIArchive:
		if o.Dest == "" {
			return &artifact.DestinationError{Ref: o.String(), Reason: "names no destination path"}
		}
		// A tag must read back as the same tag: one the reference grammar
		// does not take as a tag would silently become part of the path.
		if o.Tag != "" {
			if r, err := artifact.ParseReference(o.Reference()); err != nil || r.Path != o.Dest || r.Tag != o.Tag {
				return &artifact.DestinationError{Ref: o.String(), Reason: fmt.Sprintf("tag %q is not a tag: write letters, digits, _, . and - (at most 128, not starting with . or -)", o.Tag)}
			}
		}
	case OutputRegistry:
		r, err := artifact.ParseReference(o.Dest)
		if err != nil {
			return fmt.Errorf("output %s: %w", o, err)
		}
		if r.Kind != artifact.OriginRegistry {
			return &artifact.DestinationError{Ref: o.String(), Reason: "names a " + string(r.Kind) + ", not a registry reference; write " + r.String() + " instead"}
		}
	default:
		return &artifact.DestinationError{Ref: o.String(), Reason: fmt.Sprintf("has an unknown type %q; use oci, oci-archive or registry", o.Type)}
	}
	return nil
}

// options is Options resolved: defaults applied, values parsed.
type options struct {
	Options
	platforms []ocispecs.Platform
	ids       []string // platforms.Format of each
	epoch     int64
	created   string // RFC 3339, or "" when no epoch was given
	builtBy   *artifact.BuiltBy
	keychain  authn.Keychain
}

// makeOptions applies defaults and checks the options against each other.
func makeOptions(o Options) (*options, error) {
	r := &options{Options: o}
	list := o.Platforms
	if len(list) == 0 {
		list = DefaultPlatforms()
	}
	seen := map[string]bool{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		p, err := platforms.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", s, err)
		}
		p = platforms.Normalize(p)
		id := platforms.Format(p)
		if seen[id] {
			continue
		}
		seen[id] = true
		r.platforms = append(r.platforms, p)
		r.ids = append(r.ids, id)
	}
	if len(r.platforms) == 0 {
		return nil, fmt.Errorf("no platform to build: name at least one, such as linux/amd64")
	}
	if o.SourceDateEpoch != nil {
		if *o.SourceDateEpoch < 0 {
			return nil, fmt.Errorf("SOURCE_DATE_EPOCH %d is negative; use seconds since 1970-01-01", *o.SourceDateEpoch)
		}
		r.epoch = *o.SourceDateEpoch
		r.created = time.Unix(r.epoch, 0).UTC().Format(time.RFC3339)
	}
	dests := map[string]bool{}
	for _, out := range o.Outputs {
		if err := out.validate(); err != nil {
			return nil, err
		}
		key := string(out.Type) + ":" + out.Dest
		if out.Type != OutputRegistry {
			abs, err := filepath.Abs(out.Dest)
			if err != nil {
				return nil, fmt.Errorf("output %s: %w", out, err)
			}
			key = abs
		}
		if dests[key] {
			return nil, fmt.Errorf("output %s is named twice", out)
		}
		dests[key] = true
	}
	r.builtBy = o.BuiltBy
	if r.builtBy == nil {
		v := version.Get()
		r.builtBy = &artifact.BuiltBy{Name: v.Name, Version: v.Version, Revision: v.Revision}
	}
	r.keychain = o.Keychain
	if r.keychain == nil {
		r.keychain = authn.DefaultKeychain
	}
	if o.InsecureRegistry && o.Transport != nil {
		return nil, errors.New("InsecureRegistry and Transport both set: the transport decides how TLS is verified; configure it there")
	}
	if r.TempDir == "" {
		r.TempDir = os.TempDir()
	}
	return r, nil
}

// artifactOptions are how pkg/artifact reaches registries and writes
// archives for this build: the same keychain, transport and insecure
// setting for pushes, set members and the merged-set check.
func (o *options) artifactOptions() []artifact.Option {
	return append(o.RegistryOptions(), artifact.WithModTime(o.epochTime()))
}

// RegistryOptions are how a build reaches registries, as pkg/artifact
// options: Keychain (artifact's default when nil), Transport and
// InsecureRegistry. Code that reads what a build reads (a set's listed
// kits, a policy's baseline) uses them to reach registries the same way.
func (o Options) RegistryOptions() []artifact.Option {
	var ao []artifact.Option
	if o.Keychain != nil {
		ao = append(ao, artifact.WithKeychain(o.Keychain))
	}
	if o.Transport != nil {
		ao = append(ao, artifact.WithTransport(o.Transport))
	}
	if o.InsecureRegistry {
		ao = append(ao, artifact.WithInsecureRegistry())
	}
	return ao
}

// epochTime is the SOURCE_DATE_EPOCH as a time.
func (o *options) epochTime() time.Time { return time.Unix(o.epoch, 0).UTC() }
