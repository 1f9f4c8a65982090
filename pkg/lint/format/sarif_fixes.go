package format

import (
	"github.com/kitsmith/kitsmith/pkg/lint"
)

// The SARIF 2.1.0 fix objects.
type (
	sarifFix struct {
		Description     sarifText             `json:"description"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
		Properties      sarifFixProperties    `json:"properties"`
	}
	sarifFixProperties struct {
		Safe bool `json:"safe"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Replacements     []sarifReplacement    `json:"replacements"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifFixRegion `json:"deletedRegion"`
		InsertedContent *sarifText     `json:"insertedContent,omitempty"`
	}
	sarifFixRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine"`
		EndColumn   int `json:"endColumn"`
		ByteOffset  int `json:"byteOffset"`
		ByteLength  int `json:"byteLength"`
	}
)

// sarifFixes turns a finding's fixes into SARIF fix objects: one
// artifactChange per file, one replacement per edit (the deleted region by
// line, column and byte offset, the inserted text), and the fix's safety
// in the property bag ("safe": true for what lint --fix applies). Nil when
// the finding has none.
func (s *SARIF) sarifFixes(f *lint.Finding) []sarifFix {
	if len(f.Fixes) == 0 {
		return nil
	}
	out := make([]sarifFix, 0, len(f.Fixes))
	for _, fx := range f.Fixes {
		sf := sarifFix{Description: sarifText{fx.Title}, Properties: sarifFixProperties{Safe: fx.Safe}}
		for _, file := range fx.Files() {
			ch := sarifArtifactChange{ArtifactLocation: s.location(file)}
			for _, e := range fx.Edits {
				if e.File != file {
					continue
				}
				r := sarifReplacement{DeletedRegion: sarifFixRegion{
					StartLine: e.Range.Start.Line, StartColumn: e.Range.Start.Col,
					EndLine: e.Range.End.Line, EndColumn: e.Range.End.Col,
					ByteOffset: e.Offset, ByteLength: e.EndOffset - e.Offset,
				}}
				if e.NewText != "" {
					r.InsertedContent = &sarifText{e.NewText}
				}
				ch.Replacements = append(ch.Replacements, r)
			}
			sf.ArtifactChanges = append(sf.ArtifactChanges, ch)
		}
		out = append(out, sf)
	}
	return out
}
