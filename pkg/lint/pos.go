package lint

import (
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// rangeWidth is the range of width bytes starting at p, on one line.
func rangeWidth(p spec.Pos, width int) spec.Range {
	if !p.IsValid() || width <= 0 {
		return spec.Range{Start: p}
	}
	return spec.Range{Start: p, End: spec.Pos{File: p.File, Line: p.Line, Col: p.Col + width}}
}
