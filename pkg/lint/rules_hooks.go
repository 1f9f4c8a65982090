package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// baselineEnv is always present in a hook's environment (lifecycle@1).
var baselineEnv = map[string]bool{"PATH": true, "HOME": true, "HOSTNAME": true, "TERM": true, "PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

var hookEnvUndeclared = &Rule{
	ID:       "hook-env-undeclared",
	Severity: SeverityError,
	Summary:  "A lifecycle hook reads an environment variable its env: list does not declare.",
	Rationale: "Hook environments are deny-by-default: a hook gets only the variables its env: lists, plus " +
		"PATH HOME HOSTNAME TERM PWD OLDPWD SHLVL _. A variable it reads without declaring is empty when the hook " +
		"runs, so the hook quietly does the wrong thing (an empty port, an empty API key).",
	Fix: "Add the variable to the hook's env: list, or give it a default in the script (${NAME:-default}).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.Hooks {
			if h.Script == nil {
				continue
			}
			seen := map[string]bool{}
			for _, r := range h.Script.Reads() {
				if r.Defaulted || baselineEnv[r.Name] || h.Declares(r.Name) || seen[r.Name] {
					continue
				}
				seen[r.Name] = true
				out = append(out, Finding{Range: rangeAt(h.Script.Pos(r.Pos)),
					Message: fmt.Sprintf("%s hook %d reads $%s, which its env: list does not declare; the hook sees it empty", h.Phase, h.Index, r.Name),
					Fix:     fmt.Sprintf("add %s to env: of this hook (%s.env)", r.Name, h.Field)})
			}
		}
		return out
	},
}

// networkClient reports whether a command downloads over the network, and
// names it.
func networkClient(c Command) (string, bool) {
	switch c.Name {
	case "curl", "wget", "npm", "npx", "pnpm", "yarn", "pip", "pip3", "pipx", "uv", "apt-get", "apt", "apk", "gem", "brew", "helm":
		if c.Name == "npm" && (c.Sub() == "config" || c.Sub() == "run" || c.Sub() == "test" || c.Sub() == "start") {
			return "", false
		}
		return c.Name, true
	case "git":
		switch c.Sub() {
		case "clone", "fetch", "pull", "ls-remote", "submodule":
			return "git " + c.Sub(), true
		}
	case "go":
		switch c.Sub() {
		case "get", "install", "mod":
			return "go " + c.Sub(), true
		}
	case "cargo":
		switch c.Sub() {
		case "install", "fetch":
			return "cargo " + c.Sub(), true
		}
	case "docker":
		if c.Sub() == "pull" {
			return "docker pull", true
		}
	}
	return "", false
}

// hookCommands returns the commands a hook runs: those of its script, or
// its direct argv.
func hookCommands(h *Hook) []Command {
	if h.Script != nil {
		return h.Script.Commands()
	}
	if len(h.Argv) == 0 {
		return nil
	}
	return []Command{{Name: base(h.Argv[0]), Args: h.Argv[1:]}}
}

// commandRange positions a hook's command.
func commandRange(in *Input, h *Hook, c Command) spec.Range {
	if h.Script != nil && c.Call != nil {
		return rangeAt(h.Script.Pos(c.Pos))
	}
	return in.Kit.PosOf(h.Field + ".command")
}

var hookMissingProxyEnv = &Rule{
	ID:       "hook-missing-proxy-env",
	Severity: SeverityWarning,
	Summary:  "An install or startup hook runs a network client without HTTP_PROXY and HTTPS_PROXY in its env: list.",
	Rationale: "In a sandbox all egress goes through the sandbox proxy, which the runtime announces in HTTP_PROXY and " +
		"HTTPS_PROXY. Hook environments are deny-by-default, so a hook that downloads (curl, npm, pip, apt-get, git clone…) " +
		"without those variables tries to connect directly and fails, or hangs until it times out.",
	Fix: "Add HTTP_PROXY and HTTPS_PROXY to the hook's env: list (reading them is correct; never set them).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.Hooks {
			if h.Declares("HTTP_PROXY") && h.Declares("HTTPS_PROXY") || h.Declares("http_proxy") && h.Declares("https_proxy") {
				continue
			}
			for _, c := range hookCommands(h) {
				if name, ok := networkClient(c); ok {
					missing := missingOf(h, "HTTP_PROXY", "HTTPS_PROXY")
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("%s hook %d runs %s without %s in its env:; it cannot reach the network through the sandbox proxy", h.Phase, h.Index, name, strings.Join(missing, " and "))})
					break
				}
			}
		}
		return out
	},
}

func missingOf(h *Hook, names ...string) []string {
	var out []string
	for _, n := range names {
		if !h.Declares(n) {
			out = append(out, n)
		}
	}
	return out
}

var hookMissingDockerHost = &Rule{
	ID:       "hook-missing-docker-host",
	Severity: SeverityWarning,
	Summary:  "A lifecycle hook runs docker without DOCKER_HOST in its env: list.",
	Rationale: "The sandbox's Docker engine is announced to processes in DOCKER_HOST. Hook environments are " +
		"deny-by-default, so docker in a hook without it looks for the default socket and fails to connect.",
	Fix: "Add DOCKER_HOST to the hook's env: list.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.Hooks {
			if h.Declares("DOCKER_HOST") {
				continue
			}
			for _, c := range hookCommands(h) {
				if c.Name == "docker" || c.Name == "docker-compose" {
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("%s hook %d runs %s without DOCKER_HOST in its env:; it cannot find the sandbox's Docker engine", h.Phase, h.Index, c.Name)})
					break
				}
			}
		}
		return out
	},
}

// longLived reports a command that starts a long-lived service.
func longLived(c Command) bool {
	switch c.Name {
	case "docker", "podman":
		return c.Sub() == "compose" && c.HasArg("up") || c.Sub() == "run" || c.Sub() == "start"
	case "docker-compose":
		return c.HasArg("up")
	case "nohup", "dockerd", "containerd", "sshd", "nginx", "httpd", "redis-server", "postgres", "mysqld", "mongod",
		"uvicorn", "gunicorn", "code-server", "jupyter", "supervisord", "caddy", "ollama":
		return true
	case "node", "python", "python3", "deno", "bun", "java", "ruby":
		for _, a := range c.Args {
			if strings.Contains(a, "server") || strings.Contains(a, "serve") || a == "http.server" {
				return true
			}
		}
	case "npm", "yarn", "pnpm":
		return c.Sub() == "start" || c.Sub() == "run" && (c.HasArg("dev") || c.HasArg("serve") || c.HasArg("start"))
	}
	for _, a := range append([]string{c.Name}, c.Args...) {
		if a == "serve" || a == "server" || a == "daemon" || a == "--daemon" || a == "-d" && c.Name == "dockerd" {
			return true
		}
	}
	return false
}

var backgroundWithoutLongRunning = &Rule{
	ID:       "background-without-long-running",
	Severity: SeverityWarning,
	Summary:  "A background startup hook starts a long-lived service, but the kit does not declare long-running@1.",
	Rationale: "Without com.docker.sandbox/long-running@1 the sandbox stops when the last session detaches, taking the " +
		"background service down with it, and after a restart services started out of order may never recover.",
	Fix: "Add - type: com.docker.sandbox/long-running@1 (no config) to capabilities.",
	Check: func(in *Input) []Finding {
		if in.HasLongRunning() {
			return nil
		}
		var out []Finding
		for _, h := range in.Hooks {
			if h.Phase != "startup" || !h.Background {
				continue
			}
			for _, c := range hookCommands(h) {
				if longLived(c) {
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("startup hook %d starts a long-lived service (%s) in the background, but the kit lacks long-running@1; the sandbox stops when no client is attached", h.Index, c.Name)})
					break
				}
			}
		}
		return out
	},
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func rangeAt(p spec.Pos) spec.Range { return spec.Range{Start: p} }
