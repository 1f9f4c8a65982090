package lint

import (
	"context"
	"errors"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ErrConfigConflict reports WithConfig and WithKitConfig given together:
// one configuration for every kit, or each kit's own, not both.
var ErrConfigConflict = errors.New("lint: WithConfig and WithKitConfig exclude each other")

// WithKitConfig lints each kit under the configuration file found from its
// directory upwards (FindConfig; ConfigFile, .kitsmith.yaml), as kitsmith
// lint and kitsmith publish do: kits sharing a file are linted together
// under it, a kit with none under the default configuration, and the
// results are merged (Merge). Each file is read once per Run (LoadConfig);
// one that cannot be found, read or that names an unknown rule fails Run.
// It excludes WithConfig (ErrConfigConflict). The kits' Dir must be
// operating-system paths (as spec.LoadPath sets them).
func WithKitConfig() Option {
	return func(o *options) error {
		o.kitConfig = true
		return nil
	}
}

// runKitConfigs groups kits by the configuration file found for each,
// in the order the files are first found, and lints each group under its
// file.
func runKitConfigs(ctx context.Context, kits []*spec.Kit, o *options) (*Result, error) {
	type group struct {
		path string
		kits []*spec.Kit
	}
	var groups []*group
	byPath := map[string]*group{}
	for _, k := range kits {
		p, err := FindConfig(k.Dir)
		if err != nil {
			return nil, fmt.Errorf("looking for %s: %w", ConfigFile, err)
		}
		g := byPath[p]
		if g == nil {
			g = &group{path: p}
			byPath[p] = g
			groups = append(groups, g)
		}
		g.kits = append(g.kits, k)
	}
	results := make([]*Result, 0, len(groups))
	for _, g := range groups {
		under := *o
		under.kitConfig = false
		if g.path != "" {
			c, err := LoadConfig(g.path)
			if err != nil {
				return nil, err
			}
			under.config = c
			if err := under.resolve(); err != nil {
				return nil, err
			}
		}
		r, err := run(ctx, g.kits, &under)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return Merge(results...), nil
}
