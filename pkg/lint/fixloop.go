package lint

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
)

// DefaultFixPasses bounds the lint-fix-lint passes of FixLoop when
// FixOptions.MaxPasses is zero.
const DefaultFixPasses = 10

// LintFunc lints kits whose files read as overlay says (display path →
// text) where overlay names them, and as they are on disk otherwise. It
// returns the result and the text of every source file of the kits, by
// display path.
type LintFunc func(ctx context.Context, overlay map[string][]byte) (*Result, map[string][]byte, error)

// FixOptions configure FixLoop.
type FixOptions struct {
	// Select chooses the fixes applied; zero means SafeFixes.
	Select FixSelection
	// MaxPasses bounds the passes; zero means DefaultFixPasses.
	MaxPasses int
	// Writable reports whether a file may be changed; nil allows every
	// source file the lint returned.
	Writable func(file string) bool
}

// FixResult is what FixLoop changed and what remains.
type FixResult struct {
	// Before and After are the text of every changed file, by display
	// path, before the first pass and after the last.
	Before, After map[string][]byte
	// Applied are the fixes applied, in order, over every pass.
	Applied []Planned
	// Passes is the number of lint passes run, the last included.
	Passes int
	// Converged is false when MaxPasses ran out while fixes still
	// applied, or a pass came back to a text an earlier one wrote.
	Converged bool
	// Remaining is the lint result of the fixed text.
	Remaining *Result
}

// Changed returns the display paths of the changed files, sorted.
func (r *FixResult) Changed() []string { return slices.Sorted(maps.Keys(r.After)) }

// FixLoop lints, applies the chosen fixes in memory, lints the result
// again and repeats until no fix applies or the passes run out. It writes
// nothing; the caller writes FixResult.After.
func FixLoop(ctx context.Context, lintf LintFunc, o FixOptions) (*FixResult, error) {
	if o.Select == 0 {
		o.Select = SafeFixes
	}
	if o.MaxPasses <= 0 {
		o.MaxPasses = DefaultFixPasses
	}
	out := &FixResult{Before: map[string][]byte{}, After: map[string][]byte{}}
	overlay := map[string][]byte{}
	seen := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, srcs, err := lintf(ctx, overlay)
		if err != nil {
			return nil, err
		}
		out.Passes++
		out.Remaining = res
		if out.Passes > o.MaxPasses {
			return out, nil
		}
		edits, chosen := PlanFixes(res, o.Select)
		changed := false
		for _, file := range slices.Sorted(maps.Keys(edits)) {
			src, ok := srcs[file]
			if !ok || o.Writable != nil && !o.Writable(file) {
				continue
			}
			after, err := ApplyEdits(src, edits[file])
			if err != nil {
				return nil, fmt.Errorf("fixing %s: %w", file, err)
			}
			if bytes.Equal(after, src) {
				continue
			}
			key := file + "\x00" + string(after)
			if seen[key] {
				return out, nil // a cycle: stop where it is
			}
			seen[key] = true
			if _, ok := out.Before[file]; !ok {
				out.Before[file] = src
			}
			overlay[file] = after
			out.After[file] = after
			changed = true
		}
		for _, p := range chosen {
			for _, f := range p.Fix.Files() {
				if _, ok := overlay[f]; ok && (o.Writable == nil || o.Writable(f)) {
					out.Applied = append(out.Applied, p)
					break
				}
			}
		}
		if !changed {
			out.Converged = true
			return out, nil
		}
	}
}
