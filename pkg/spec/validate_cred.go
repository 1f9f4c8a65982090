package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// checkCredential applies the credential@1 rules; it reports whether the
// entry is sound enough for the inject check.
func (v *validator) checkCredential(cf string, c Credential) bool {
	n := len(v.semantic.Errors)
	if c.Service == "" {
		v.errorf(field(cf, "service"), "credential", "", "credential service is required: the host credential store key, as in github")
	} else if literal(c.Service) && !serviceRE.MatchString(c.Service) {
		v.errorf(field(cf, "service"), "credential", "", "invalid service name %q: use lowercase letters, digits and dashes (at most 64), as in github", c.Service)
	}
	v.checkPhases(field(cf, "phase"), c.Phase)
	if c.APIKey == nil && c.OAuth == nil {
		v.errorf(cf, "credential", "credential@1/one-of-apikey-oauth", "credential declares neither apiKey nor oauth; declare one (or both)")
	}
	if k := c.APIKey; k != nil {
		if k.Name == "" && len(k.Inject) == 0 {
			v.errorf(field(cf, "apiKey"), "credential", "credential@1/name-or-inject", "apiKey needs a name (the env var holding the placeholder), inject rules, or both")
		}
		if k.Name != "" && !identRE.MatchString(k.Name) {
			v.errorf(field(cf, "apiKey", "name"), "credential", "", "apiKey.name %q is not a valid environment variable name; use letters, digits and underscores, not starting with a digit", k.Name)
		}
		for j, in := range k.Inject {
			if in.Domain == "" {
				v.errorf(field(cf, "apiKey", "inject", j, "domain"), "credential", "", "inject[%d]: domain is required: the host whose requests get the header", j)
			}
			v.checkHost(field(cf, "apiKey", "inject", j, "domain"), fmt.Sprintf("inject[%d].domain", j), in.Domain)
		}
	}
	if o := c.OAuth; o != nil {
		if o.TokenEndpoint != nil && o.TokenEndpoint.Host == "" {
			v.errorf(field(cf, "oauth", "tokenEndpoint", "host"), "credential", "", "oauth.tokenEndpoint.host is required: the host that issues the tokens")
		}
		if o.TokenEndpoint != nil {
			v.checkHost(field(cf, "oauth", "tokenEndpoint", "host"), "oauth.tokenEndpoint.host", o.TokenEndpoint.Host)
		}
		for j, h := range o.ResourceHosts {
			v.checkHost(field(cf, "oauth", "resourceHosts", j), fmt.Sprintf("oauth.resourceHosts[%d]", j), h)
		}
		if cfile := o.CredentialFile; cfile != nil && cfile.Format != nil {
			switch *cfile.Format {
			case "json", "toml":
			case "":
				v.errorf(field(cf, "oauth", "credentialFile", "format"), "credential", "", "credentialFile.format is empty; omit the field for json or name an encoding (json or toml)")
			default:
				v.errorf(field(cf, "oauth", "credentialFile", "format"), "credential", "", "credentialFile.format %q is not json or toml; write one of them, or omit it for json", *cfile.Format)
			}
		}
		if cfile := o.CredentialFile; cfile != nil && cfile.Format != nil && *cfile.Format == "toml" {
			v.checkTOMLNulls(field(cf, "oauth", "credentialFile", "structure"), cfile.Structure, 0)
		}
	}
	return len(v.semantic.Errors) == n
}

// checkPhases applies the phase rules of credential@1 and ssh-agent@1 and
// reports whether they hold.
func (v *validator) checkPhases(f string, phases Phases) bool {
	if len(phases) == 0 {
		v.errorf(f, "phase", "", "phase must be install or runtime, or a non-empty list of distinct phases")
		return false
	}
	seen := map[string]bool{}
	for _, p := range phases {
		if literal(p) && p != "install" && p != "runtime" {
			v.errorf(f, "phase", "", "phase must be install or runtime, not %q", p)
			return false
		}
		if seen[p] {
			v.errorf(f, "phase", "", "phase %q is listed twice; list it once", p)
			return false
		}
		seen[p] = true
	}
	return true
}

// checkTOMLNulls reports every null inside a TOML credential file
// structure, which TOML cannot represent.
func (v *validator) checkTOMLNulls(f string, x any, depth int) {
	if depth > maxDepth {
		return
	}
	switch x := x.(type) {
	case nil:
		v.errorf(f, "credential", "", "%s is null, which TOML cannot represent; write a value, remove the key, or use format: json", f[strings.Index(f, "credentialFile"):])
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			v.checkTOMLNulls(field(f, k), x[k], depth+1)
		}
	case []any:
		for i, e := range x {
			v.checkTOMLNulls(field(f, i), e, depth+1)
		}
	}
}
