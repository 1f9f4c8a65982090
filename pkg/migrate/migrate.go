package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// SpecFile is the file name of a v2 kit's descriptor.
const SpecFile = "spec.yaml"

// ErrNotV2 reports a descriptor that is not a v2 kit (its schemaVersion is
// not "2", or it is not a YAML mapping).
var ErrNotV2 = errors.New("not a v2 kit")

// ErrV1 reports a v1 kit (schemaVersion "1"); it is also ErrNotV2.
var ErrV1 = fmt.Errorf("%w: it is a v1 kit (schemaVersion \"1\"), which kitsmith migrate does not read; move it to v2 first (sbx-kits-contrib's v1 → v2 migration), then to v3", ErrNotV2)

// File is one generated v3 source file.
type File struct {
	// Name is the file's path relative to the output directory, e.g.
	// "claude.yaml".
	Name string
	// Data is the file's content; nil for a symbolic link.
	Data []byte
	// Mode is the file's permission bits: zero for a generated file
	// (written 0644), the v2 file's own bits for a carried one.
	Mode fs.FileMode
	// Link is a carried symbolic link's target, as written in the v2 kit
	// (it resolves inside the kit); "" for a file.
	Link string
}

// Result is the outcome of a migration.
type Result struct {
	// Stem is the v3 kit's stem: the v2 kit's name, or the directory's
	// name when the name is missing or unusable.
	Stem string
	// Files are the generated files: the descriptor first, then the
	// recipe and the context body when there are any.
	Files []File
	// Carried lists the v2 kit's files, relative to its directory, that
	// the generated recipe reads (the files/home tree). They must sit
	// beside the output; the output directory is the build context.
	Carried []string
	// CarriedFiles are the files under Carried, as read from the v2 kit
	// (links that stay in the kit kept as links), for a caller that writes
	// the output elsewhere.
	CarriedFiles []File
	// Notes are what a person should know or do, sorted by v2 position.
	Notes []Note
	// Validation is the specification's verdict on the generated kit.
	Validation *spec.Report
	// Lint is the linter's verdict on the generated kit (it includes the
	// specification's errors and warnings as spec/<code> findings).
	Lint *lint.Result
}

// NeedsHuman reports whether the migration is unfinished: a Note asks for
// an action, the result is invalid, or lint finds an error.
func (r *Result) NeedsHuman() bool {
	for _, n := range r.Notes {
		if n.Action {
			return true
		}
	}
	if r.Validation != nil && !r.Validation.OK() {
		return true
	}
	return r.Lint != nil && r.Lint.Fails(lint.SeverityError)
}

// File returns the generated file called name, or nil.
func (r *Result) File(name string) *File {
	for i := range r.Files {
		if r.Files[i].Name == name {
			return &r.Files[i]
		}
	}
	return nil
}

// Option configures Migrate.
type Option func(*options) error

type options struct {
	displayDir string
	outputDir  string
	lintOpts   []lint.Option
}

// WithDisplayDir sets the path the v2 kit's positions are reported under
// (default: the dir given to Migrate).
func WithDisplayDir(dir string) Option {
	return func(o *options) error { o.displayDir = dir; return nil }
}

// WithOutputDir sets the display path of the directory the result will be
// written to, used for the positions of validation and lint findings
// (default: the display directory of the input).
func WithOutputDir(dir string) Option {
	return func(o *options) error { o.outputDir = dir; return nil }
}

// WithLintOptions passes options to lint.Run (default: none, the default
// rules and configuration).
func WithLintOptions(opts ...lint.Option) Option {
	return func(o *options) error { o.lintOpts = append(o.lintOpts, opts...); return nil }
}

func makeOptions(dir string, opts []Option) (*options, error) {
	o := &options{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	if o.displayDir == "" {
		o.displayDir = dir
	}
	if o.outputDir == "" {
		o.outputDir = o.displayDir
	}
	return o, nil
}

// Migrate reads the v2 kit in directory dir of fsys and returns its v3
// sources, what needs a person, and the validation and lint verdicts on
// the result. It writes nothing. It fails when the kit cannot be read, is
// not a v2 kit (ErrNotV2), or ctx is done; problems inside the kit are
// Notes.
//
// It reads nothing outside dir: a symbolic link that resolves outside it
// is a *LinkError naming the link (fsys should confine names as well, as
// an os.Root's file system does); links inside it are followed, and the
// ones carried along are kept as links. It reads regular files only (a
// FIFO or device is spec.ErrNotRegular, refused without being opened),
// each at most 8 MiB (spec.ErrFileTooLarge) and all together at most
// 64 MiB (ErrKitTooLarge), and stops with ctx.
func Migrate(ctx context.Context, fsys fs.FS, dir string, opts ...Option) (*Result, error) {
	o, err := makeOptions(dir, opts)
	if err != nil {
		return nil, err
	}
	kfs := &kitFS{ctx: ctx, fsys: fsys, dir: path.Clean(dir), display: o.displayDir}
	src, err := kfs.read(SpecFile)
	if err != nil {
		return nil, fmt.Errorf("reading v2 kit %s: %w", o.displayDir, err)
	}
	m := newMigrator(kfs)
	if err := m.run(src); err != nil {
		return nil, fmt.Errorf("migrating %s: %w", path.Join(o.displayDir, SpecFile), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := m.result()
	if err := check(ctx, res, o); err != nil {
		return nil, err
	}
	return res, nil
}

// check loads the generated files as a kit and validates and lints them.
func check(ctx context.Context, res *Result, o *options) error {
	mem := fstest.MapFS{}
	for _, f := range res.CarriedFiles { // lint reads the scripts the recipe copies
		mem[f.Name] = &fstest.MapFile{Data: f.Data, Mode: f.Mode}
		if f.Link != "" {
			mem[f.Name] = &fstest.MapFile{Data: []byte(f.Link), Mode: fs.ModeSymlink | 0o777}
		}
	}
	for _, f := range res.Files {
		mem[f.Name] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	k, err := spec.Load(mem, res.Stem+".yaml", spec.WithDisplayDir(o.outputDir))
	if err != nil {
		return fmt.Errorf("loading the migrated kit: %w", err)
	}
	res.Validation = k.Validate()
	res.Lint, err = lint.Run(ctx, []*spec.Kit{k}, o.lintOpts...)
	if err != nil {
		return fmt.Errorf("linting the migrated kit: %w", err)
	}
	return nil
}
