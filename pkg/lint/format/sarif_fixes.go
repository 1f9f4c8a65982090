package format

import (
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// sarifFixes turns a finding's fixes into SARIF fix objects: one
// artifactChange per file, one replacement per edit (the deleted region by
// line, column and byte offset, the inserted text), and the fix's safety
// in the property bag ("safe": true for what lint --fix applies).
func (s *SARIF) sarifFixes(f *lint.Finding) []*sarif.Fix {
	if len(f.Fixes) == 0 {
		return nil
	}
	out := make([]*sarif.Fix, 0, len(f.Fixes))
	for _, fx := range f.Fixes {
		sf := sarif.NewFix().WithDescription(sarif.NewTextMessage(fx.Title)).
			WithProperties(sarif.NewPropertyBag().Add("safe", fx.Safe))
		for _, file := range fx.Files() {
			ch := sarif.NewArtifactChange().WithArtifactLocation(sarif.NewSimpleArtifactLocation(s.uri(file)))
			for _, e := range fx.Edits {
				if e.File != file {
					continue
				}
				region := sarif.NewRegion().
					WithStartLine(e.Range.Start.Line).WithStartColumn(e.Range.Start.Col).
					WithEndLine(e.Range.End.Line).WithEndColumn(e.Range.End.Col).
					WithByteOffset(e.Offset).WithByteLength(e.EndOffset - e.Offset)
				r := sarif.NewReplacement().WithDeletedRegion(region)
				if e.NewText != "" {
					r.WithInsertedContent(sarif.NewArtifactContent().WithText(e.NewText))
				}
				ch.AddReplacement(r)
			}
			sf.AddArtifactChange(ch)
		}
		out = append(out, sf)
	}
	return out
}
