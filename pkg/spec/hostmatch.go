package spec

// HostNameCovers reports whether the host-name part of a network-policy
// entry (no port) covers name, as the sandbox proxy matches them (see
// Host.Covers): * and ** cover everything; "**.example.org" covers every
// name under example.org, and the patterns under it ("*.a.example.org");
// "*.example.org" covers exactly one more label; anything else covers
// only itself. Both are compared case-insensitively, a trailing dot
// dropped; either one failing ParseHost covers and is covered by
// nothing.
func HostNameCovers(pattern, name string) bool {
	p, err := ParseHost(pattern)
	if err != nil {
		return false
	}
	n, err := ParseHost(name)
	if err != nil {
		return false
	}
	p.Port, n.Port = 0, 0
	return p.Covers(n)
}
