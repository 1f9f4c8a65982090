package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/migrate"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type migrateOptions struct {
	format string
	output string
	force  bool
	dryRun bool
}

func newMigrateCmd(_ *rootOptions) *cobra.Command {
	o := &migrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate [flags] V2DIR",
		Short: "Turn a v2 kit (spec.yaml) into v3 sources, with a report of what needs a human",
		Long: `Migrate reads a v2 kit (its spec.yaml with schemaVersion "2", its files/ tree
and an optional Dockerfile) and writes the v3 sources the contrib repository
uses: <kit>.yaml (the descriptor), <kit>.dockerfile when an image, entrypoint,
command, environment variable or file has to live in a recipe, and
<kit>-context.md for agent instructions. <kit> is the v2 kit's name.

The mapping is mechanical and never widens authority: network allow entries
are kept verbatim in the runtime phase, and also in install when the kit has
install hooks; deny entries go into both phases; entries v2 declared but did
not enforce (**.example.com, port ranges, host:*, CIDR) are not carried;
hooks map one to one, declaring the variables they read (and the proxy ones
when they run a network client); credentials become optional, as v2
credentials were. Comments and key order are kept where the mapping allows.
What cannot be mapped (oauth.skipIfEnv, a proxy variable, a background
install step, extends...) is listed in the report with its v2 file:line:col
and what to do, and marked "# kitsmith:migrate" in the output. The result is
then validated and linted, and both verdicts are printed.

The output goes next to the input unless --output says otherwise; existing
files are not overwritten without --force. --dry-run prints a unified diff of
what would be written instead.

It reads nothing outside the kit: a symbolic link that leaves it, a FIFO or
a device is refused (exit 2) naming the file. With --force, files an earlier
migration wrote that this one does not are removed.

Exit status: 0 only when the output validates, lints with no error and no
action note remains; 1 otherwise (see the report); 2 usage or I/O error (no
spec.yaml, not a v2 kit, a link out of the kit, a file in the way), with
nothing written. With --format json an exit-2 error is a JSON document too.`,
		Example: `  # migrate in place: claude/claude.yaml, claude.dockerfile, claude-context.md
  kitsmith migrate claude

  # see what would be written, as a diff
  kitsmith migrate --dry-run claude

  # write into another directory, replacing an earlier migration
  kitsmith migrate --output v3/claude --force claude

  # the report as JSON, for a script that migrates many kits
  kitsmith migrate --format json claude`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := o.validate()
			if err == nil {
				err = o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
			}
			var ue *usageError
			if o.format == "json" && errors.As(err, &ue) && cmd.Context().Err() == nil {
				// a script reading --format json gets a document on exit 2 too
				msg := ue.Error()
				_ = migrate.WriteJSONError(cmd.OutOrStdout(), args[0], msg, ue.hint)
			}
			return err
		},
	}
	o.AddFlags(cmd)
	return cmd
}

func (o *migrateOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "directory to write the v3 sources to (default: the v2 kit's directory)")
	f.BoolVar(&o.force, "force", false, "overwrite existing files")
	f.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of what would be written; write nothing")
	f.StringVar(&o.format, "format", "text", "report format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagDirname("output")
}

func (o *migrateOptions) validate() error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("--format must be text or json, not %q", o.format)
	}
	if o.dryRun && o.force {
		return usageErrorf("--dry-run writes nothing, so --force means nothing with it")
	}
	if o.dryRun && o.format == "json" {
		return usageErrorf("--dry-run prints a diff, which --format json cannot hold; drop one of them")
	}
	return nil
}

// notV2Kit explains why dir, which holds no spec.yaml, cannot be migrated.
func notV2Kit(dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return usageErrorf("%v: a v2 kit is a directory holding %s", err, migrate.SpecFile)
	} else if !fi.IsDir() {
		return usageErrorf("%s is not a directory: a v2 kit is a directory holding %s", dir, migrate.SpecFile)
	}
	if _, err := spec.LoadPath(dir); err == nil {
		return usageErrorf("%s holds a v3 kit already: nothing to migrate (kitsmith validate and lint judge it)", dir)
	}
	return usageErrorf("%s holds no %s: a v2 kit is a directory holding %s", dir, migrate.SpecFile, migrate.SpecFile)
}

func (o *migrateOptions) run(ctx context.Context, out, errOut io.Writer, dir string) error {
	outDir := o.output
	if outDir == "" {
		outDir = dir
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return notV2Kit(dir)
	}
	res, err := migrateKit(ctx, dir, outDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && ctx.Err() == nil {
			return notV2Kit(dir)
		}
		return usageErrorf("%v", err)
	}
	writes, err := o.plan(res, dir, outDir)
	if err != nil {
		return err
	}
	if o.dryRun {
		if err := printDiff(out, writes); err != nil {
			return err
		}
	} else if err := apply(ctx, writes); err != nil {
		return err
	}
	for _, w := range writes {
		if w.remove && !o.dryRun {
			fmt.Fprintf(errOut, "removed %s: an earlier migration wrote it, this one does not\n", textsafe.String(w.path))
		}
	}
	write := res.WriteReport
	if o.format == "json" {
		write = res.WriteJSON
	}
	if err := write(out); err != nil {
		return err
	}
	if res.NeedsHuman() {
		return errFindings
	}
	return nil
}

// migrateKit migrates the v2 kit in dir, read through an os.Root opened at
// it (as spec.LoadPath reads a kit), so no path or symbolic link reaches
// outside it. It returns as soon as ctx is done, even if a read is stuck,
// so the first signal stops migrate before anything is written.
func migrateKit(ctx context.Context, dir, outDir string) (*migrate.Result, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return migrateFS(ctx, root.FS(), root.Close, dir, outDir)
}

// migrateFS migrates the kit fsys holds at its root, in a goroutine the
// caller does not wait for once ctx is done; release is called when the
// migration ends.
func migrateFS(ctx context.Context, fsys fs.FS, release func() error, dir, outDir string) (*migrate.Result, error) {
	type outcome struct {
		res *migrate.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer release()
		res, err := migrate.Migrate(ctx, fsys, ".", migrate.WithDisplayDir(dir), migrate.WithOutputDir(outDir))
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// write is one file migrate puts in the output directory.
type write struct {
	path string
	data []byte
	mode fs.FileMode // permission bits; 0 means 0644
	link string      // a symbolic link's target; "" for a file
	old  []byte      // the file's current content; nil when it does not exist
	// remove marks a file an earlier migration wrote that this one does
	// not: --force removes it.
	remove bool
}

// plan lists the files to write (generated ones, and the carried v2 files
// when the output is elsewhere) and refuses to overwrite without --force.
func (o *migrateOptions) plan(res *migrate.Result, in, out string) ([]write, error) {
	var ws []write
	for _, f := range res.Files {
		ws = append(ws, write{path: filepath.Join(out, f.Name), data: f.Data})
	}
	if !samePath(in, out) {
		// what the library read of the kit, links kept as links
		for _, f := range res.CarriedFiles {
			p := filepath.Join(out, filepath.FromSlash(f.Name))
			if !slices.ContainsFunc(ws, func(w write) bool { return w.path == p }) {
				ws = append(ws, write{path: p, data: f.Data, mode: f.Mode, link: f.Link})
			}
		}
	}
	ws = append(ws, stale(res, in, out, ws)...)
	var taken []string
	for i := range ws {
		fi, err := os.Lstat(ws[i].path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, usageErrorf("reading %s: %v", ws[i].path, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(ws[i].path)
			ws[i].old = []byte(target)
		case !fi.Mode().IsRegular():
			return nil, usageErrorf("%s is in the way: it is not a regular file", ws[i].path)
		default:
			if ws[i].old, err = os.ReadFile(ws[i].path); err != nil {
				return nil, usageErrorf("reading %s: %v", ws[i].path, err)
			}
		}
		taken = append(taken, ws[i].path)
	}
	if len(taken) > 0 && !o.force && !o.dryRun {
		return nil, &usageError{err: fmt.Errorf("refusing to overwrite %s", taken[0]),
			hint: fmt.Sprintf("%d file(s) already exist; pass --force to replace them or --dry-run to see the difference.", len(taken))}
	}
	return ws, nil
}

// stale lists the files an earlier migration into out wrote that this one
// does not: the generated files it no longer needs (a recipe, a context
// body) and, when out is not the v2 kit, the files under a carried
// directory that the kit no longer has. They would otherwise change the
// kit (a stale recipe is its recipe) or its image.
func stale(res *migrate.Result, in, out string, ws []write) []write {
	planned := map[string]bool{}
	for _, w := range ws {
		planned[w.path] = true
	}
	var gone []write
	add := func(p string) {
		if !planned[p] {
			planned[p] = true
			gone = append(gone, write{path: p, remove: true})
		}
	}
	for _, name := range []string{res.Stem + ".yaml", res.Stem + ".dockerfile", res.Stem + "-context.md"} {
		if p := filepath.Join(out, name); !planned[p] {
			if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
				add(p)
			}
		}
	}
	if samePath(in, out) {
		return gone
	}
	for _, c := range res.Carried {
		root := filepath.Join(out, filepath.FromSlash(c))
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				add(p)
			}
			return nil
		})
	}
	return gone
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// apply writes every planned file: each to a temporary file beside it
// first, so an interruption (ctx done) before the last one leaves nothing
// written, then renames them all into place.
func apply(ctx context.Context, ws []write) error {
	var temps, made []string // made: directories created, outermost first
	cleanup := func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i]) // only when empty
		}
	}
	for _, w := range ws {
		if err := ctx.Err(); err != nil {
			cleanup()
			return err
		}
		if w.remove {
			temps = append(temps, "")
			continue
		}
		made = append(made, missingDirs(filepath.Dir(w.path))...)
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			cleanup()
			return usageErrorf("writing %s: %v", w.path, err)
		}
		tmp := filepath.Join(filepath.Dir(w.path), ".kitsmith-migrate-"+filepath.Base(w.path))
		os.Remove(tmp)
		temps = append(temps, tmp)
		var err error
		if w.link != "" {
			err = os.Symlink(w.link, tmp)
		} else {
			mode := w.mode
			if mode == 0 {
				mode = 0o644
			}
			if err = os.WriteFile(tmp, w.data, mode); err == nil {
				err = os.Chmod(tmp, mode) // WriteFile's mode is filtered by the umask
			}
		}
		if err != nil {
			cleanup()
			return usageErrorf("writing %s: %v", w.path, err)
		}
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return err
	}
	for i, w := range ws {
		if w.remove {
			if err := os.Remove(w.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				cleanup()
				return usageErrorf("removing %s: %v", w.path, err)
			}
			continue
		}
		if err := os.Rename(temps[i], w.path); err != nil {
			cleanup()
			return usageErrorf("writing %s: %v", w.path, err)
		}
	}
	return nil
}

// missingDirs returns dir and its parents that do not exist yet,
// outermost first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// printDiff prints each planned write as a unified diff against what is
// there now.
func printDiff(out io.Writer, ws []write) error {
	for _, w := range ws {
		from, old := "/dev/null", []string{}
		if w.old != nil {
			from, old = w.path, difflib.SplitLines(string(w.old))
		}
		data, to := w.data, w.path
		if w.link != "" {
			data = []byte(w.link) // a link diffs as its target
		}
		if w.remove {
			data, to = nil, "/dev/null"
		}
		text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: old, B: difflib.SplitLines(string(data)),
			FromFile: from, ToFile: to, Context: 3,
		})
		if err != nil {
			return fmt.Errorf("diffing %s: %w", w.path, err)
		}
		if _, err := io.WriteString(out, text); err != nil {
			return err
		}
	}
	return nil
}
