package conform

import (
	"fmt"
	"strings"
)

// String renders the finding as one line, the one text form of a check
// finding that kitsmith prints (check, build, publish):
//
//	FAIL overlay-home-ownership [linux/amd64]: message (SPEC-v3 §10/overlay-home-ownership)
//
// The platform is "index" for a finding about the image index.
func (f Finding) String() string {
	where := f.Platform
	if where == "" {
		where = "index"
	}
	s := fmt.Sprintf("%s %s [%s]: %s", strings.ToUpper(string(f.Severity)), f.Check, where, f.Message)
	if f.Spec != "" {
		s += " (" + f.Spec + ")"
	}
	return s
}
