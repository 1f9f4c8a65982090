package build

import (
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// contribution is one input of a set merge: a listed kit's published
// descriptor (its args answered by the set), or the set's own
// declarations.
type contribution struct {
	// who names it in messages: the kit reference, or "the set".
	who string
	d   *spec.Descriptor
	// body reads the agent-context body a contentFile of this
	// contribution names.
	body func(contentFile string) ([]byte, error)
}

// merged is a set merge's outcome.
type merged struct {
	d *spec.Descriptor
	// files are the agent-context bodies the set stages in its own
	// directory: the merged undirected body (spec.SetContextName) and the
	// bodies of the listed kits' directed entries.
	files []stagedFile
}

// mergeSet merges ordered contributions (the listed kits in dependency
// order, the set's own last) into one published descriptor with
// spec.MergeSet, the merge kitsmith diff and resolve read a set source
// with, so that a set's source and its built form compare equal.
func mergeSet(own *spec.Descriptor, authoredKind, stem string, cs []contribution) (*merged, error) {
	scs := make([]spec.SetContribution, len(cs))
	for i, c := range cs {
		scs[i] = spec.SetContribution{Contribution: spec.Contribution{Who: c.who, Descriptor: c.d}, Body: c.body}
	}
	m, err := spec.MergeSet(own, authoredKind, stem, scs)
	if err != nil {
		return nil, err
	}
	out := &merged{d: m.Descriptor}
	for _, b := range m.Bodies {
		out.files = append(out.files, stagedFile{Path: b.Path, Data: b.Data})
	}
	return out, nil
}
