package lint

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// hookBaseline is always present in a hook's environment (lifecycle@1).
var hookBaseline = []string{"PATH", "HOME", "HOSTNAME", "TERM", "PWD", "OLDPWD", "SHLVL", "_"}

// HookBaselineEnv returns the variables every lifecycle hook sees without
// declaring them in its env: list (PATH, HOME, HOSTNAME, TERM, PWD, OLDPWD,
// SHLVL and _), which hook-env-undeclared does not report. The slice is
// the caller's.
func HookBaselineEnv() []string { return slices.Clone(hookBaseline) }

// inHookBaseline reports whether name is in HookBaselineEnv.
func inHookBaseline(name string) bool { return slices.Contains(hookBaseline, name) }

var hookEnvUndeclared = &Rule{
	ID:       "hook-env-undeclared",
	Severity: SeverityError,
	Summary:  "A lifecycle hook reads an environment variable its env: list does not declare.",
	Rationale: "Hook environments are deny-by-default: a hook gets only the variables its env: lists, plus " +
		strings.Join(hookBaseline, " ") + ". A variable it reads without declaring is empty when the hook " +
		"runs, so the hook quietly does the wrong thing: an empty port, an empty API key, a request that goes out " +
		"without credentials. Variables the script sets itself (assignments, for and read variables), positional " +
		"and special parameters, ${NAME:-default} forms, variables read after an eval (which may assign them) and " +
		"${{ kit.args.NAME }} placeholders are not environment reads.",
	Fix: "Add the variable to the hook's env: list (env: [NAME]), or give it a default in the script (${NAME:-default}).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.Hooks {
			if h.Script == nil {
				continue
			}
			seen := map[string]bool{}
			evalAt := h.Script.firstEval()
			for _, r := range h.Script.Reads() {
				if r.Defaulted || inHookBaseline(r.Name) || h.Declares(r.Name) || seen[r.Name] {
					continue
				}
				if evalAt.IsValid() && r.Pos.After(evalAt) {
					continue // eval may have assigned it: the script's own code, not the environment
				}
				seen[r.Name] = true
				out = append(out, Finding{Range: h.Script.Range(r.Pos, r.End),
					Message: fmt.Sprintf("%s reads $%s, which its env: list does not declare; hook environments are deny-by-default, so the hook sees it empty", h.Label(), r.Name),
					Fix:     fmt.Sprintf("add %s to this hook's env: list (%s), or write ${%s:-<default>} if empty is acceptable", r.Name, envListHint(h, r.Name), r.Name),
					Fixes:   in.envFix(h, true, r.Name)})
			}
		}
		return out
	},
}

// envListHint shows the hook's env: list with names added. Entries that
// are no variable name (HTTP_PROXY=http://…, which env: cannot hold) are
// left out, so the fix is valid as written.
func envListHint(h *Hook, names ...string) string {
	var list []string
	for _, e := range h.Env {
		if isVarName(e) && !slices.Contains(names, e) {
			list = append(list, e)
		}
	}
	list = append(list, names...)
	return "env: [" + strings.Join(list, ", ") + "]"
}

// networkSubs lists, for programs that download only in some of their
// subcommands, those subcommands.
var networkSubs = map[string][]string{
	"npm":     {"install", "i", "ci", "add", "update", "up", "upgrade", "exec", "x", "init", "create", "publish", "view", "info", "outdated", "audit", "pack"},
	"pnpm":    {"install", "i", "add", "update", "up", "dlx", "create", "fetch"},
	"yarn":    {"install", "add", "upgrade", "up", "dlx", "create", "global"},
	"pip":     {"install", "download", "wheel", "index", "search"},
	"pip3":    {"install", "download", "wheel", "index", "search"},
	"pipx":    {"install", "run", "upgrade", "upgrade-all", "inject"},
	"uv":      {"pip", "add", "sync", "lock", "run", "tool", "python", "venv", "init"},
	"apt-get": {"update", "install", "upgrade", "dist-upgrade", "full-upgrade", "source", "download", "build-dep"},
	"apt":     {"update", "install", "upgrade", "dist-upgrade", "full-upgrade", "source", "download", "build-dep"},
	"apk":     {"add", "update", "upgrade", "fetch"},
	"dnf":     {"install", "update", "upgrade", "makecache", "download"},
	"yum":     {"install", "update", "upgrade", "makecache"},
	"gem":     {"install", "update", "fetch"},
	"brew":    {"install", "update", "upgrade", "fetch", "tap"},
	"helm":    {"install", "upgrade", "pull", "repo", "dependency", "fetch"},
	"git":     {"clone", "fetch", "pull", "ls-remote", "submodule", "push"},
	"go":      {"get", "install", "mod", "build", "run", "test", "generate", "download"},
	"cargo":   {"install", "fetch", "build", "update", "add"},
	"docker":  {"pull"},
	"podman":  {"pull"},
}

// alwaysNetwork are programs whose purpose is to download.
var alwaysNetwork = map[string]bool{"curl": true, "wget": true, "npx": true, "bunx": true, "aria2c": true}

// networkClient reports whether a command downloads over the network, and
// names it.
func networkClient(c Command) (string, bool) {
	if alwaysNetwork[c.Name] {
		if (c.Name == "curl" || c.Name == "wget") && onlyLocal(c.Args) {
			return "", false
		}
		return c.Name, true
	}
	subs, ok := networkSubs[c.Name]
	if !ok {
		return "", false
	}
	sub := c.Sub()
	for _, s := range subs {
		if s == sub {
			return c.Name + " " + sub, true
		}
	}
	return "", false
}

// NetworkClient returns the first network client the hook runs (curl,
// pip install, git clone…), found as hook-missing-proxy-env finds it, and
// whether it runs one. A hook standing for a staged script (Via) is judged
// on that script.
func (h *Hook) NetworkClient() (string, bool) {
	for _, c := range hookCommands(h) {
		if name, ok := networkClient(c); ok {
			return name, true
		}
	}
	return "", false
}

// onlyLocal reports whether every literal URL among args is on the
// sandbox's own loopback, which needs no proxy. Without a literal URL it
// is false.
func onlyLocal(args []string) bool {
	found := false
	for _, a := range args {
		if !strings.Contains(a, "://") {
			continue
		}
		u, err := url.Parse(a)
		if err != nil || u.Hostname() == "" {
			return false
		}
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
			found = true
		default:
			return false
		}
	}
	return found
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

// commandRange positions a hook's command: its name in the script, or the
// first element of an argv.
func commandRange(in *Input, h *Hook, c Command) spec.Range {
	if h.Script != nil && c.Call != nil {
		return h.Script.Range(c.Pos, c.End)
	}
	return in.Kit.PosOf(h.Field + ".command[0]")
}

var hookMissingProxyEnv = &Rule{
	ID:       "hook-missing-proxy-env",
	Severity: SeverityWarning,
	Summary:  "A hook contacts a credential's inject domain without HTTP_PROXY and HTTPS_PROXY in its env: list, so no credential is injected.",
	Rationale: "A sandbox has two paths out. The forward proxy that HTTP_PROXY and HTTPS_PROXY name enforces the " +
		"network policy and injects credentials (credential@1 inject entries); the transparent path catches direct " +
		"connections, still enforces the policy, but does not intercept them to inject credentials (a maintainer's " +
		"account of the transparent proxy in docker/sbx-releases#289; #240 describes the forward proxy as policy plus " +
		"credentials). The specification's own conformance fixtures agree: the TCK fixture scoped-egress has an install " +
		"hook with no env: that must reach its install-allowed host, and the credential@1/inject-only-no-env check " +
		"counts the proxy variables as part of the container's baseline environment. So a hook without the proxy " +
		"variables still reaches allowed hosts; what it loses is credential injection. Hook environments are " +
		"deny-by-default, so a hook that calls a credential's inject domain in that credential's phase (curl, wget, " +
		"git clone over HTTPS, gh, package tools with a named index…) without the variables sends its requests " +
		"unauthenticated, and fails with 401 or 403, or is rate-limited. Git over SSH (git@host:path, ssh://) never " +
		"reads the proxy variables and gets no header injected, so it is left to ssh-agent-undeclared; image pulls " +
		"are made by the Docker engine, not the hook.",
	Fix: "Add HTTP_PROXY and HTTPS_PROXY to the hook's env: list (reading them is correct; never set them).",
	Check: func(in *Input) []Finding {
		injects := in.injectDomains()
		if len(injects) == 0 {
			return nil
		}
		distro := in.distro()
		var out []Finding
		for _, h := range in.Hooks {
			missing := missingOf(h, "HTTP_PROXY", "HTTPS_PROXY")
			if len(missing) == 0 || len(missingOf(h, "http_proxy", "https_proxy")) == 0 {
				continue
			}
			if ct, inj, ok := in.injectedContact(h, injects, distro); ok {
				out = append(out, Finding{Range: ct.Range,
					Message: fmt.Sprintf("%s contacts %s (%s), where the %s credential injects its header, without %s in its env:; only the forward proxy those variables name injects credentials, so the request goes out without it",
						h.Label(), ct.Host, ct.Via, inj.Service, strings.Join(missing, " and ")),
					Fix:   fmt.Sprintf("list the proxy variables in this hook: %s", envListHint(h, missing...)),
					Fixes: in.envFix(h, true, missing...)})
			}
		}
		return out
	},
}

// injectedContact returns the first request a hook makes to an inject
// domain of a credential of the hook's phase: an HTTP(S) contact written in
// the command (not SSH or git's own protocol, which carry no header, and
// not an image the engine pulls).
func (in *Input) injectedContact(h *Hook, injects []injectDomain, distro string) (contact, injectDomain, bool) {
	phase := "runtime"
	if h.Phase == "install" {
		phase = "install"
	}
	for _, c := range hookCommands(h) {
		if c.Name == "docker" || c.Name == "podman" || c.Name == "docker-compose" {
			continue // the engine pulls images, not the hook
		}
		for _, ct := range in.contacts(h, c, distro) {
			if !ct.Certain || ct.Port == "22" || ct.Port == "9418" {
				continue
			}
			for _, inj := range injects {
				if slices.Contains(inj.Phases, phase) && hostMatches(inj.Value, ct) {
					return ct, inj, true
				}
			}
		}
	}
	return contact{}, injectDomain{}, false
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

// dockerClientOnly reports a docker invocation that never talks to the
// engine: a version or help lookup.
func dockerClientOnly(c Command) bool {
	if len(c.Args) == 0 {
		return true
	}
	switch c.Args[0] {
	case "--version", "-v", "--help", "-h", "help":
		return true
	}
	return false
}

var hookMissingDockerHost = &Rule{
	ID:       "hook-missing-docker-host",
	Severity: SeverityWarning,
	Summary:  "A lifecycle hook runs docker without DOCKER_HOST in its env: list.",
	Rationale: "The sandbox's Docker engine is announced to processes in DOCKER_HOST. Hook environments are " +
		"deny-by-default, so docker in a hook without it looks for the default socket and fails to connect. " +
		"A Docker-in-Docker kit whose hooks start their own dockerd on the default socket (no -H, or -H " +
		"unix:///var/run/docker.sock among its hosts) or start the docker service needs no DOCKER_HOST.",
	Fix: "Add DOCKER_HOST to the hook's env: list.",
	Check: func(in *Input) []Finding {
		if startsOwnDockerd(in) {
			return nil // Docker-in-Docker on the default socket needs no DOCKER_HOST
		}
		var out []Finding
		for _, h := range in.Hooks {
			if h.Declares("DOCKER_HOST") || h.Script != nil && setsVar(h.Script, "DOCKER_HOST") {
				continue
			}
			for _, c := range hookCommands(h) {
				if (c.Name == "docker" || c.Name == "docker-compose") && !dockerClientOnly(c) && !assigns(c, "DOCKER_HOST") {
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("%s runs %s without DOCKER_HOST in its env:; hook environments are deny-by-default, so it cannot find the sandbox's Docker engine", h.Label(), c.Name),
						Fix:     fmt.Sprintf("list DOCKER_HOST in this hook: %s", envListHint(h, "DOCKER_HOST")),
						Fixes:   in.envFix(h, true, "DOCKER_HOST")})
					break
				}
			}
		}
		return out
	},
}

// startsOwnDockerd reports a Docker-in-Docker kit: a hook starts dockerd
// listening on the default socket (no -H or --host, or one of them naming
// unix:///var/run/docker.sock), or starts the docker service (service
// docker start, systemctl start docker, /etc/init.d/docker start), which
// docker then finds without DOCKER_HOST, as in the specification's builder
// example.
func startsOwnDockerd(in *Input) bool {
	for _, h := range in.Hooks {
		for _, c := range hookCommands(h) {
			if startsDockerService(c) || c.Name == "dockerd" && dockerdOnDefaultSocket(c.Args) {
				return true
			}
		}
	}
	return false
}

// defaultDockerSocket is where docker looks when DOCKER_HOST is unset.
const defaultDockerSocket = "unix:///var/run/docker.sock"

// dockerdOnDefaultSocket reports dockerd arguments that leave it on the
// default socket: no host, or a host list that includes it.
func dockerdOnDefaultSocket(args []string) bool {
	var hosts []string
	for i, a := range args {
		switch {
		case (a == "-H" || a == "--host") && i+1 < len(args):
			hosts = append(hosts, args[i+1])
		case strings.HasPrefix(a, "--host="):
			hosts = append(hosts, strings.TrimPrefix(a, "--host="))
		case strings.HasPrefix(a, "-H") && len(a) > 2:
			hosts = append(hosts, strings.TrimPrefix(strings.TrimPrefix(a, "-H"), "="))
		case a == "-H" || a == "--host":
			hosts = append(hosts, "") // a host that is not literal
		}
	}
	if len(hosts) == 0 {
		return true
	}
	for _, h := range hosts {
		if h == defaultDockerSocket || h == "unix:///run/docker.sock" || h == "fd://" {
			return true
		}
	}
	return false
}

// startsDockerService reports a command that starts the docker service.
func startsDockerService(c Command) bool {
	switch {
	case c.Name == "service":
		return len(c.Args) >= 2 && c.Args[0] == "docker" && (c.Args[1] == "start" || c.Args[1] == "restart")
	case c.Name == "systemctl":
		return (c.Sub() == "start" || c.Sub() == "restart") && (c.HasArg("docker") || c.HasArg("docker.service"))
	case c.Name == "docker" && c.Call != nil:
		// /etc/init.d/docker start: the init script, not the client
		for _, w := range c.Call.Args {
			if t, ok := WordText(w); ok && w.Pos() == c.Pos && strings.HasSuffix(t, "init.d/docker") {
				return len(c.Args) > 0 && (c.Args[0] == "start" || c.Args[0] == "restart")
			}
		}
	case c.Name == "dockerd-entrypoint.sh" || c.Name == "dind":
		return true
	}
	return false
}

// setsVar reports whether the script assigns name with a value.
func setsVar(s *Script, name string) bool {
	for _, a := range s.Assignments() {
		if a.Name == name && a.HasValue {
			return true
		}
	}
	return false
}

// assigns reports whether a command is run with NAME=value for name.
func assigns(c Command, name string) bool {
	for _, a := range c.Assigns {
		if a.Name != nil && a.Name.Value == name {
			return true
		}
	}
	for _, w := range c.EnvAssigns {
		if t, _ := WordText(w); strings.HasPrefix(t, name+"=") {
			return true
		}
	}
	return false
}

// longLived reports a command that starts a long-lived service, and
// whether it detaches from the hook by itself (docker run -d, compose up
// -d, a daemon).
func longLived(c Command) (service, detached bool) {
	detach := c.HasArg("-d") || c.HasArg("--detach")
	switch c.Name {
	case "docker", "podman":
		switch c.Sub() {
		case "compose":
			return c.HasArg("up"), detach
		case "run", "start", "container":
			return true, detach || c.Sub() == "start"
		}
		return false, false
	case "docker-compose":
		return c.HasArg("up"), detach
	case "dockerd", "containerd", "sshd", "nginx", "httpd", "redis-server", "postgres", "mysqld", "mongod",
		"uvicorn", "gunicorn", "code-server", "jupyter", "supervisord", "caddy", "ollama", "vllm":
		return true, c.Name == "sshd" || c.Name == "nginx" && !c.HasArg("-g")
	case "node", "python", "python3", "deno", "bun", "java", "ruby":
		for _, a := range c.Args {
			if strings.Contains(a, "server") || strings.Contains(a, "serve") {
				return true, false
			}
		}
		return false, false
	case "npm", "yarn", "pnpm":
		return c.Sub() == "start" || c.Sub() == "run" && (c.HasArg("dev") || c.HasArg("serve") || c.HasArg("start")), false
	}
	if shortLived[c.Name] {
		// git checkout --detach detaches HEAD, not a process; git
		// daemon is the one server among these.
		return c.Name == "git" && c.Sub() == "daemon", false
	}
	for _, a := range append([]string{c.Name}, c.Args...) {
		switch a {
		case "serve", "server", "daemon":
			return true, false
		case "--daemon":
			return true, true
		}
	}
	return false, false
}

// shortLived are programs that run to completion whatever their flags say
// (git checkout --detach, git worktree add --detach): never a service,
// even sent to the background.
var shortLived = map[string]bool{"git": true, "sleep": true, "curl": true, "wget": true, "cp": true, "mv": true, "rm": true,
	"mkdir": true, "chown": true, "chmod": true, "echo": true, "printf": true, "touch": true, "tar": true, "unzip": true,
	"sed": true, "ln": true, "cat": true, "tee": true, "true": true, "test": true}

var backgroundWithoutLongRunning = &Rule{
	ID:       "background-without-long-running",
	Severity: SeverityWarning,
	Summary:  "A startup hook starts a long-lived service in the background, but the kit does not declare long-running@1.",
	Rationale: "Without com.docker.sandbox/long-running@1 the sandbox stops when the last session detaches, taking the " +
		"background service down with it; after the next start, services that come up out of order may never recover " +
		"(the reShapr gateway started before its control plane stays unhealthy). This applies to background: true " +
		"startup hooks and to services a startup hook detaches itself (cmd &, nohup, docker run -d, compose up -d).",
	Fix: "Add - type: com.docker.sandbox/long-running@1 (no config) to capabilities.",
	Check: func(in *Input) []Finding {
		if in.HasLongRunning() {
			return nil
		}
		var out []Finding
		for _, h := range in.Hooks {
			if h.Phase != "startup" {
				continue
			}
			for _, c := range hookCommands(h) {
				service, detached := longLived(c)
				if c.Background && !shortLived[c.Name] { // cmd & or nohup cmd: kept running on purpose
					service, detached = true, true
				}
				if !service || !(h.Background || detached) {
					continue
				}
				how := "in a background: true hook"
				if !h.Background {
					how = "detached from the hook"
				}
				out = append(out, Finding{Range: commandRange(in, h, c),
					Message: fmt.Sprintf("%s starts a long-lived service (%s) %s, but the kit lacks long-running@1; the sandbox stops when no client is attached, and the service with it",
						h.Label(), commandLabel(c), how)})
				break
			}
		}
		return out
	},
}

// commandLabel is the command's name and first subcommand.
func commandLabel(c Command) string {
	if s := c.Sub(); s != "" && (c.Name == "docker" || c.Name == "podman" || c.Name == "npm") {
		return c.Name + " " + s
	}
	return c.Name
}
