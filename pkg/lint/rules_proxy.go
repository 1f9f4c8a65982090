package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// proxyVars are the variables that route traffic around the sandbox proxy.
var proxyVars = map[string]bool{"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true}

func isProxyVar(name string) bool { return proxyVars[strings.ToUpper(name)] }

// loopbackNoProxy reports a NO_PROXY value that names only loopback
// hosts (localhost, 127.0.0.1, ::1, *.localhost): traffic to those never
// reaches the sandbox proxy, so such a value bypasses nothing. value is as
// written, quotes included; anything not a literal list is not loopback.
func loopbackNoProxy(name, value string) bool {
	if !strings.EqualFold(name, "NO_PROXY") {
		return false
	}
	value = strings.Trim(strings.TrimSpace(value), `"'`)
	if value == "" || strings.ContainsAny(value, "$`") {
		return false
	}
	for _, h := range strings.Split(value, ",") {
		h = strings.TrimSpace(h)
		h = strings.TrimPrefix(strings.TrimPrefix(h, "*"), ".")
		if h, _, ok := strings.Cut(h, "/"); ok { // 127.0.0.0/8
			if !loopback(h) {
				return false
			}
			continue
		}
		if !loopback(strings.Trim(h, "[]")) {
			return false
		}
	}
	return true
}

// loopbackNoProxyWord is loopbackNoProxy for a shell assignment; a value
// that is not literal text is not loopback.
func loopbackNoProxyWord(a Assignment) bool {
	v, ok := WordText(a.Word)
	return ok && loopbackNoProxy(a.Name, v)
}

const proxyWhy = "it routes traffic around the sandbox proxy, so network policy and credential injection silently stop applying"

var proxyEnvOverride = &Rule{
	ID:       "proxy-env-override",
	Severity: SeverityError,
	Summary:  "The kit sets HTTP_PROXY, HTTPS_PROXY, NO_PROXY or ALL_PROXY, which bypasses the sandbox proxy.",
	Rationale: "The sandbox routes all egress through its own proxy, which enforces the network policy and injects " +
		"credentials, and announces it to processes in HTTP_PROXY and HTTPS_PROXY. A kit that sets a proxy variable " +
		"(Dockerfile ENV, an arg exported with env:, an export or NAME=value prefix in a hook, an rc, profile or env " +
		"file) sends traffic around that proxy: the policy and credential injection stop working, without an error. " +
		"A NO_PROXY copied from another kit (for host.docker.internal) is the classic case: the request to the host " +
		"service then goes out without the injected key. Reading the variables (listing them in a hook's env:, using " +
		"$HTTP_PROXY) is correct, and so is a NO_PROXY that names only loopback hosts (localhost, 127.0.0.1, ::1), " +
		"whose traffic never reaches the proxy.",
	Fix: "Remove the assignment. To reach a host service, allow localhost:<port> in the network policy instead of " +
		"bypassing the proxy; to give a hook the proxy, list HTTP_PROXY and HTTPS_PROXY in its env:.",
	Check: func(in *Input) []Finding {
		var out []Finding
		if d := in.Recipe; d != nil {
			for _, v := range d.Vars() {
				if v.Instruction == "ENV" && isProxyVar(v.Name) && !loopbackNoProxy(v.Name, v.Value) {
					out = append(out, Finding{Range: v.NameRange,
						Message: fmt.Sprintf("ENV %s sets the variable for every process in the sandbox; %s", v.Name, proxyWhy),
						Fixes:   in.removeEnvInstruction(v)})
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(in.Kit.Descriptor.Args)) {
			if a := in.Kit.Descriptor.Args[name]; isProxyVar(a.Env) {
				f := in.at(fmt.Sprintf("args.%s.env", name), "arg %q is exported as %s; %s", name, a.Env, proxyWhy)
				f.Fixes = in.removeArgEnv(name)
				out = append(out, f)
			}
		}
		seen := map[*Script]bool{}
		for _, h := range in.Hooks {
			if h.Script == nil || h.Via != "" && h.Source == "" || !firstRun(seen, h) {
				continue // a staged lifecycle file is checked below
			}
			for _, a := range h.Script.Assignments() {
				if isProxyVar(a.Name) && a.HasValue && !proxySelfCopy(a) && !loopbackNoProxyWord(a) {
					out = append(out, Finding{Range: rangeWidth(h.Script.Pos(a.Pos), len(a.Name)),
						Message: fmt.Sprintf("%s sets %s; %s", h.Label(), a.Name, proxyWhy),
						Fixes:   in.removeAssignmentLine(h.Script.Pos(a.Pos), a.Name)})
				}
			}
		}
		for _, f := range in.Files {
			out = append(out, proxyInFile(in, f)...)
		}
		return out
	},
}

// proxySelfCopy reports an assignment whose value is just the sandbox's own
// proxy variable, such as http_proxy="$HTTP_PROXY" for a tool that reads
// only the lower-case name: that keeps the sandbox proxy.
func proxySelfCopy(a Assignment) bool {
	ref, ok := soleParam(a.Word)
	if !ok || !isProxyVar(ref) {
		return false
	}
	name, ref := strings.ToUpper(a.Name), strings.ToUpper(ref)
	return name == ref || name != "NO_PROXY" && ref != "NO_PROXY"
}

// soleParam returns NAME when w is exactly $NAME, ${NAME} or "$NAME".
func soleParam(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok {
		if len(dq.Parts) != 1 {
			return "", false
		}
		part = dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil || pe.Length || pe.Excl {
		return "", false
	}
	return pe.Param.Value, true
}

// proxyLineRE finds a proxy variable set by a line of a configuration
// file: NAME=value, NAME = value (wgetrc), "NAME": "value" (JSON),
// Environment="NAME=value" (systemd).
var proxyLineRE = regexp.MustCompile(`(?i)(?:^|[\s"'])(?:export\s+)?((?:http|https|no|all)_proxy)["']?\s*[=:]\s*\S`)

// proxyInFile finds proxy variables set by a lifecycle file: shell
// assignments in shell-like files, NAME=value settings in other
// configuration files. Markdown is documentation and is skipped.
func proxyInFile(in *Input, f *LifecycleFile) []Finding {
	var out []Finding
	if f.Script != nil {
		for _, a := range f.Script.Assignments() {
			if isProxyVar(a.Name) && a.HasValue && !proxySelfCopy(a) && !loopbackNoProxyWord(a) {
				out = append(out, Finding{Range: rangeWidth(f.Script.Pos(a.Pos), len(a.Name)),
					Message: fmt.Sprintf("file %s sets %s; every process that reads the file bypasses the sandbox proxy, so network policy and credential injection silently stop applying", f.Path, a.Name),
					Fixes:   in.removeAssignmentLine(f.Script.Pos(a.Pos), a.Name)})
			}
		}
		return out
	}
	if strings.HasSuffix(strings.ToLower(f.Path), ".md") {
		return nil
	}
	pos := in.contentPos(f)
	for i, line := range strings.Split(f.Content, "\n") {
		for _, m := range proxyLineRE.FindAllStringSubmatchIndex(line, -1) {
			name := line[m[2]:m[3]]
			start := pos(i+1, m[2]+1)
			out = append(out, Finding{Range: rangeWidth(start, len(name)),
				Message: fmt.Sprintf("file %s sets %s; every program that reads the file bypasses the sandbox proxy, so network policy and credential injection silently stop applying", f.Path, name)})
		}
	}
	return out
}
