package lint

// SecuritySeverity returns the CVSS-like score (0.0 to 10.0) of a rule
// whose findings are security problems, for code-scanning services that
// rank security alerts by it (SARIF properties.security-severity), and
// false for every other rule:
//
//	literal-secret        9.0  a credential in the kit is readable by everyone who can pull it
//	proxy-env-override    8.0  the agent's traffic bypasses the sandbox proxy and its policy
//	unverified-download   7.5  code from the network runs without a checksum or signature
//	wildcard-allow        6.5  the agent may reach any host
//	egress-not-allowed    5.0  a hook contacts a host outside its phase's allow list
func SecuritySeverity(id string) (float64, bool) {
	switch id {
	case "literal-secret":
		return 9.0, true
	case "proxy-env-override":
		return 8.0, true
	case "unverified-download":
		return 7.5, true
	case "wildcard-allow":
		return 6.5, true
	case "egress-not-allowed":
		return 5.0, true
	}
	return 0, false
}
