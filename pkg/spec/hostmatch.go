package spec

import "strings"

// HostNameCovers reports whether the host-name part of a network-policy
// entry (no port) covers name, as the sandbox proxy matches them: * and **
// cover everything; "**.example.org" covers every name under
// example.org; "*.example.org" covers exactly one more label; anything
// else covers only itself. name may itself be a pattern ("*.a.example.org"
// is covered by "**.example.org", not by "*.example.org"), so a
// permission ceiling can judge allow entries with the same rule the
// runtime judges hosts with. Both are taken as written (lower-case them
// first where case does not matter).
func HostNameCovers(pattern, name string) bool {
	switch {
	case pattern == "*" || pattern == "**" || pattern == name:
		return true
	case strings.HasPrefix(pattern, "**."):
		suffix := pattern[2:]
		return strings.HasSuffix(name, suffix) && len(name) > len(suffix) && (name[0] != '*' || name == "*"+suffix)
	case strings.HasPrefix(pattern, "*."):
		label, ok := strings.CutSuffix(name, pattern[1:])
		return ok && label != "" && !strings.ContainsAny(label, ".*")
	}
	return false
}
