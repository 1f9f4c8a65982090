package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

var unusedArg = &Rule{
	ID:       "unused-arg",
	Severity: SeverityInfo,
	Summary:  "An arg is declared but never referenced, exported with env or passed as a build arg.",
	Rationale: "An installer can set an arg that nothing reads: --kit-arg region=us-east-1 is accepted and changes " +
		"nothing, which is worse than an error. Usually a reference was renamed or removed and the declaration left " +
		"behind. References in YAML comments count, as the specification says; references in a recipe or a staged " +
		"context body do not, since neither is expanded.",
	Fix: "Reference the arg (${{ kit.args.NAME }}), export it (env: NAME) or pass it to the recipe (buildArg: NAME), or remove it.",
	Check: func(in *Input) []Finding {
		d := in.Kit.Descriptor
		if len(d.Args) == 0 {
			return nil
		}
		used := map[string]bool{}
		for _, r := range spec.FindArgRefs(string(in.Kit.Source)) {
			used[r.Name] = true
		}
		var out []Finding
		for _, name := range slices.Sorted(maps.Keys(d.Args)) {
			a := d.Args[name]
			if used[name] || a.Env != "" || a.BuildArg != "" {
				continue
			}
			f := Finding{Range: in.Kit.KeyPosOf("args." + name),
				Message: fmt.Sprintf("arg %q is declared but nothing reads it: no ${{ kit.args.%s }} reference, no env and no buildArg, so a value an installer supplies changes nothing", name, name)}
			out = append(out, f)
		}
		return out
	},
}

// syntaxLineRE matches a first line that hands the build to a kit
// frontend: docker/sandbox-kit or docker/runtime-kit, any registry, tag or
// digest.
var syntaxLineRE = regexp.MustCompile(`^#\s*syntax\s*=\s*(\S+/)?(sandbox-kit|runtime-kit)(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?\s*$`)

var missingSyntaxLine = &Rule{
	ID:       "missing-syntax-line",
	Severity: SeverityWarning,
	Summary:  "A YAML descriptor's first line is not # syntax=docker/sandbox-kit:3.",
	Rationale: "BuildKit reads the frontend to build a file with from its first line only. A descriptor that starts " +
		"with anything else (a yaml-language-server modeline, a comment, a blank line) is still valid YAML, so kitsmith " +
		"and editors read it, but docker buildx build -f kit.yaml hands it to the Dockerfile frontend, which fails on " +
		"the first key. The modeline belongs on line 2.",
	Fix: "Make line 1 exactly # syntax=docker/sandbox-kit:3 (a pinned tag or digest of the frontend is fine).",
	Check: func(in *Input) []Finding {
		k := in.Kit
		if k.Form == spec.FormComment {
			return nil // a Dockerfile names its own frontend
		}
		src := in.source(k.Path)
		if src == nil {
			return nil
		}
		first, _, _ := strings.Cut(string(src), "\n")
		first = strings.TrimSuffix(first, "\r")
		if syntaxLineRE.MatchString(first) {
			return nil
		}
		p := spec.Pos{File: k.Path, Line: 1, Col: 1}
		msg := "line 1 is not a # syntax= line naming the kit frontend, so BuildKit builds this file as a Dockerfile and fails"
		if i := strings.Index(string(src), "# syntax="); i > 0 {
			msg = fmt.Sprintf("the # syntax= line is on line %d, but BuildKit reads the frontend from line 1 only, so it builds this file as a Dockerfile and fails",
				1+strings.Count(string(src[:i]), "\n"))
		}
		return []Finding{{Range: rangeWidth(p, len(first)), Message: msg, Fixes: in.syntaxLineFix()}}
	},
}

// usesSSHAgent reports a command that talks to an SSH agent, and how.
func usesSSHAgent(c Command) (string, bool) {
	switch c.Name {
	case "ssh-add":
		return "ssh-add", true
	case "ssh", "scp", "sftp":
		for i, a := range c.Args {
			if a == "-A" || a == "-oForwardAgent=yes" || a == "-o" && i+1 < len(c.Args) && strings.EqualFold(c.Args[i+1], "ForwardAgent=yes") {
				return c.Name + " with agent forwarding", true
			}
		}
	case "git":
		for i, a := range c.Args {
			if strings.EqualFold(a, "gpg.format=ssh") || strings.EqualFold(a, "gpg.format") && i+1 < len(c.Args) && c.Args[i+1] == "ssh" && c.Sub() != "config" {
				return "git signing with an SSH key", true
			}
		}
	case "ssh-keygen":
		if c.HasArg("-Y") && c.HasArg("sign") {
			return "ssh-keygen -Y sign", true
		}
	}
	return "", false
}

var sshAgentUndeclared = &Rule{
	ID:       "ssh-agent-undeclared",
	Severity: SeverityWarning,
	Summary:  "A hook uses an SSH agent, but the kit declares no ssh-agent@1 for its phase or the hook's env: lacks SSH_AUTH_SOCK.",
	Rationale: "The runtime relays an SSH agent into a phase only when the kit asks for one with " +
		"com.docker.sandbox/ssh-agent@1, and a hook sees the agent's socket only when its env: lists SSH_AUTH_SOCK " +
		"(hook environments are deny-by-default). Without either, ssh-add, ssh -A, git clone or fetch of an SSH remote " +
		"(git@host:path, ssh://), ssh with SSH_AUTH_SOCK in its env: and git signing with gpg.format ssh find no agent " +
		"and fail, or fall back to prompting, inside a hook nobody watches. A kit that configures git to sign commits " +
		"with an SSH key (git config gpg.format ssh in a hook, or a staged gitconfig) uses the agent at commit time, in " +
		"the sandbox's sessions, so it needs ssh-agent@1 for the runtime phase. A git command given a key file of its " +
		"own (GIT_SSH_COMMAND=\"ssh -i …\") needs no agent.",
	Fix: "Declare - type: com.docker.sandbox/ssh-agent@1 with config: {phase: <install or runtime>}, and add SSH_AUTH_SOCK to the hook's env: list.",
	Check: func(in *Input) []Finding {
		if len(in.Hooks) == 0 && len(in.Files) == 0 {
			return nil
		}
		phases := map[string]bool{}
		for _, e := range in.Entries {
			if e.Type != spec.TypeSSHAgent {
				continue
			}
			var a spec.SSHAgent
			if spec.DecodeConfig(e.Config, &a) == nil {
				for _, p := range a.Phase {
					phases[p] = true
				}
			}
		}
		var out []Finding
		for _, h := range in.Hooks {
			phase := "runtime"
			if h.Phase == "install" {
				phase = "install"
			}
			for _, c := range hookCommands(h) {
				how, ok := usesSSHAgent(c)
				if !ok {
					how, ok = usesSSHTransport(h, c)
				}
				if !ok {
					continue
				}
				switch {
				case !phases[phase]:
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("%s uses an SSH agent (%s), but the kit declares no ssh-agent@1 for the %s phase, so there is none to use", h.Label(), how, phase),
						Fix:     fmt.Sprintf("declare - type: com.docker.sandbox/ssh-agent@1 with config: {phase: %s}", phase)})
				case !h.Declares("SSH_AUTH_SOCK"):
					out = append(out, Finding{Range: commandRange(in, h, c),
						Message: fmt.Sprintf("%s uses an SSH agent (%s) without SSH_AUTH_SOCK in its env:; hook environments are deny-by-default, so it cannot find the agent's socket", h.Label(), how),
						Fix:     fmt.Sprintf("list SSH_AUTH_SOCK in this hook: %s", envListHint(h, "SSH_AUTH_SOCK")),
						Fixes:   in.envFix(h, true, "SSH_AUTH_SOCK")})
				}
			}
		}
		return append(out, in.signingFindings(phases)...)
	},
}
