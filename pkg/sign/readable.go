package sign

import (
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxReason bounds a rejection's Reason; the whole text is in Detail.
const maxReason = 240

var (
	// byteDump is a Go byte slice printed with %v, as sigstore-go prints
	// hashes and roots: "[21 46 16 …]".
	byteDump = regexp.MustCompile(`\[(?:\d{1,3} ){3,}\d{1,3}\]`)
	// nilWrap is what fmt prints for a nil error given to %w.
	nilWrap = regexp.MustCompile(`:?\s*%!w\(<nil>\)`)
)

// readable turns a rejection into one readable line and, when that line
// leaves something out, the whole text: byte dumps (sigstore-go prints
// hashes so) become short hex, fmt's "%!w(<nil>)" is dropped, and the line
// is cut at maxReason runes.
func readable(err error) (reason, detail string) {
	full := nilWrap.ReplaceAllString(err.Error(), "")
	full = byteDump.ReplaceAllStringFunc(full, func(m string) string {
		fields := strings.Fields(strings.Trim(m, "[]"))
		b := make([]byte, 0, len(fields))
		for _, f := range fields {
			n, err := strconv.Atoi(f)
			if err != nil || n > 255 {
				return m
			}
			b = append(b, byte(n))
		}
		h := hex.EncodeToString(b)
		if len(h) > 16 {
			h = h[:16] + "…"
		}
		return h
	})
	full = strings.Join(strings.Fields(full), " ")
	reason = full
	if utf8.RuneCountInString(reason) > maxReason {
		r := []rune(reason)
		reason = string(r[:maxReason]) + "…"
	}
	if reason != full {
		detail = full
	}
	return reason, detail
}
