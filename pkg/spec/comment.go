package spec

import (
	"bytes"
	"strings"
)

// CommentMarker is the line that opens a comment descriptor inside a
// Dockerfile (SPEC-v3 §3.3).
const CommentMarker = "# kit:"

// ExtractComment returns the descriptor YAML carried by src's "# kit:"
// comment block, and ok=false when src has no marker line. The block is the
// run of comment lines after the marker; each contributes its text after
// "#" and one optional space, dedented by the two spaces that nest it under
// the marker. A bare "#" is an empty line. The block ends at the first line
// that is not a comment or whose text is not indented by two spaces. The
// extraction is byte-faithful: nothing is re-encoded.
//
// The returned line map gives, for each line of the YAML, its 1-based line
// in src and the number of bytes removed before it, so positions in the
// YAML map back to the Dockerfile.
func ExtractComment(src []byte) (yaml []byte, lines []LineOrigin, ok bool) {
	all := bytes.Split(src, []byte("\n"))
	start := -1
	for i, line := range all {
		if strings.TrimRight(string(line), " \t\r") == CommentMarker {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, nil, false
	}
	var out bytes.Buffer
	for i := start + 1; i < len(all); i++ {
		line := bytes.TrimSuffix(all[i], []byte("\r"))
		if !bytes.HasPrefix(line, []byte("#")) {
			break
		}
		off := 1
		if bytes.HasPrefix(line[1:], []byte(" ")) {
			off = 2
		}
		text := line[off:]
		if len(text) > 0 && !bytes.HasPrefix(text, []byte("  ")) {
			break
		}
		if len(text) > 0 {
			off += 2
			out.Write(text[2:])
		}
		out.WriteByte('\n')
		lines = append(lines, LineOrigin{Line: i + 1, Offset: off})
	}
	return out.Bytes(), lines, true
}

// LineOrigin locates a line of extracted text in the file it came from.
type LineOrigin struct {
	// Line is the 1-based line in the original file.
	Line int
	// Offset is the number of bytes of the original line that precede the
	// extracted text.
	Offset int
}

// ContentRecipe returns the Dockerfile a comment-descriptor file hands to
// the Dockerfile frontend: from a second "# syntax=" line in the leading
// comment region when there is one (it names the content's own frontend),
// otherwise the whole file with its leading syntax directive blanked out.
func ContentRecipe(src []byte) []byte {
	s := string(src)
	offset := 0
	for line := 0; offset < len(s); line++ {
		end := strings.IndexByte(s[offset:], '\n')
		if end < 0 {
			end = len(s) - offset
		}
		text := strings.TrimSpace(strings.TrimRight(s[offset:offset+end], "\r"))
		if line > 0 && strings.HasPrefix(text, "# syntax=") {
			return []byte(s[offset:])
		}
		if line > 0 && text != "" && !strings.HasPrefix(text, "#") {
			break
		}
		offset += end + 1
	}
	first, rest, found := strings.Cut(s, "\n")
	if !strings.HasPrefix(strings.TrimSpace(first), "# syntax=") {
		return src
	}
	const neutral = "# (syntax directive consumed by the kit frontend)"
	if !found {
		return []byte(neutral)
	}
	return []byte(neutral + "\n" + rest)
}
