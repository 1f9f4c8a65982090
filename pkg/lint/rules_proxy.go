package lint

import (
	"fmt"
	"regexp"
	"strings"
)

// proxyVars are the variables that route traffic around the sandbox proxy.
var proxyVars = map[string]bool{"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true}

func isProxyVar(name string) bool { return proxyVars[strings.ToUpper(name)] }

var proxyEnvOverride = &Rule{
	ID:       "proxy-env-override",
	Severity: SeverityError,
	Summary:  "The kit sets HTTP_PROXY, HTTPS_PROXY, NO_PROXY or ALL_PROXY, which bypasses the sandbox proxy.",
	Rationale: "The sandbox routes all egress through its own proxy, which enforces the network policy and injects " +
		"credentials. A kit that sets a proxy variable (Dockerfile ENV, an arg exported with env:, an export in a hook, " +
		"an rc or profile file) sends traffic around that proxy: the policy and credential injection stop working, " +
		"without an error. Listing these variables in a hook's env: (to read the sandbox's values) is correct.",
	Fix: "Remove the assignment. To reach a host service, allow localhost:<port> in the network policy instead of bypassing the proxy; to pass the proxy to a hook, list HTTP_PROXY and HTTPS_PROXY in its env:.",
	Check: func(in *Input) []Finding {
		var out []Finding
		if d := in.Recipe; d != nil {
			for _, n := range d.Instructions() {
				if !strings.EqualFold(n.Value, "env") {
					continue
				}
				for kv := n.Next; kv != nil && kv.Next != nil; kv = kv.Next.Next {
					if isProxyVar(kv.Value) {
						out = append(out, Finding{Range: rangeAt(d.Pos(n.StartLine, 1)),
							Message: fmt.Sprintf("ENV %s in the recipe bypasses the sandbox proxy: network policy and credential injection stop applying", kv.Value)})
					}
				}
			}
		}
		if args := in.Kit.Descriptor.Args; args != nil {
			for _, name := range sortedKeys(args) {
				if a := args[name]; isProxyVar(a.Env) {
					out = append(out, in.at(fmt.Sprintf("args.%s.env", name), "arg %q is exported as %s, which bypasses the sandbox proxy", name, a.Env))
				}
			}
		}
		for _, h := range in.Hooks {
			if h.Script == nil {
				continue
			}
			for _, a := range h.Script.Assignments() {
				if isProxyVar(a.Name) && a.HasValue {
					out = append(out, Finding{Range: rangeAt(h.Script.Pos(a.Pos)),
						Message: fmt.Sprintf("%s hook %d sets %s, which sends its traffic around the sandbox proxy", h.Phase, h.Index, a.Name)})
				}
			}
		}
		for _, f := range in.Files {
			out = append(out, proxyInFile(in, f)...)
		}
		return out
	},
}

var envLineRE = regexp.MustCompile(`(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=`)

// proxyInFile finds proxy variables set by a lifecycle file: shell
// assignments in shell-like files, KEY= lines in env files.
func proxyInFile(in *Input, f *LifecycleFile) []Finding {
	var out []Finding
	if f.Script != nil {
		for _, a := range f.Script.Assignments() {
			if isProxyVar(a.Name) && a.HasValue {
				out = append(out, Finding{Range: rangeAt(f.Script.Pos(a.Pos)),
					Message: fmt.Sprintf("file %s sets %s; every shell that reads it bypasses the sandbox proxy", f.Path, a.Name)})
			}
		}
		return out
	}
	if !shellLikeFile(f.Path) {
		return nil
	}
	for _, m := range envLineRE.FindAllStringSubmatchIndex(f.Content, -1) {
		name := f.Content[m[2]:m[3]]
		if isProxyVar(name) {
			out = append(out, in.at(f.Field+".content", "file %s sets %s; every process that reads it bypasses the sandbox proxy", f.Path, name))
		}
	}
	return out
}
