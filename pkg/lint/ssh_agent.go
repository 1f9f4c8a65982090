package lint

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// sshRemote reports a git remote that uses SSH: ssh://… or the scp-like
// user@host:path form.
func sshRemote(arg string) bool {
	if strings.HasPrefix(arg, "ssh://") || strings.HasPrefix(arg, "git+ssh://") || strings.HasPrefix(arg, "ssh+git://") {
		return true
	}
	at, colon := strings.IndexByte(arg, '@'), strings.IndexByte(arg, ':')
	return at > 0 && colon > at+1 && !strings.Contains(arg[:colon], "/") && colon+1 < len(arg) && !strings.HasPrefix(arg[colon+1:], "//")
}

// gitNetworkSubs are the git subcommands that reach a remote.
var gitNetworkSubs = map[string]bool{"clone": true, "fetch": true, "pull": true, "push": true, "ls-remote": true}

// usesSSHTransport reports a command that authenticates over SSH: git
// clone, fetch, pull, push or ls-remote of an SSH remote, and ssh, scp or
// sftp when the hook hands them the agent's socket. A git command given a
// key file of its own (GIT_SSH_COMMAND="ssh -i …", core.sshCommand) needs
// no agent.
func usesSSHTransport(h *Hook, c Command) (string, bool) {
	switch c.Name {
	case "git":
		if !gitNetworkSubs[c.Sub()] {
			return "", false
		}
		if v, ok := assigned(c, "GIT_SSH_COMMAND", "GIT_SSH"); ok && (strings.Contains(v, "-i ") || v != "" && !strings.Contains(v, "ssh")) {
			return "", false
		}
		for _, a := range c.Args {
			if strings.HasPrefix(strings.ToLower(a), "core.sshcommand=") {
				return "", false
			}
		}
		for _, a := range c.Args {
			if sshRemote(a) {
				return "git " + c.Sub() + " over SSH", true
			}
		}
	case "ssh", "scp", "sftp":
		if h.Declares("SSH_AUTH_SOCK") && !hasIdentityFile(c.Args) {
			return c.Name + " with SSH_AUTH_SOCK", true
		}
	}
	return "", false
}

func hasIdentityFile(args []string) bool {
	for i, a := range args {
		if a == "-i" || strings.HasPrefix(a, "-i") && len(a) > 2 || a == "-o" && i+1 < len(args) && strings.HasPrefix(strings.ToLower(args[i+1]), "identityfile=") {
			return true
		}
	}
	return false
}

// configuresSSHSigning reports a git config call that makes git sign with
// an SSH key: git config [--global|--system|--file f] gpg.format ssh.
func configuresSSHSigning(c Command) bool {
	if c.Name != "git" || c.Sub() != "config" {
		return false
	}
	for i, a := range c.Args {
		if strings.EqualFold(a, "gpg.format") && i+1 < len(c.Args) && strings.EqualFold(c.Args[i+1], "ssh") {
			return true
		}
	}
	return false
}

// gitconfigSSHFormat finds format = ssh in a [gpg] section of a gitconfig.
var gitconfigSSHFormat = regexp.MustCompile(`(?im)^\s*\[gpg\]\s*(?:#.*)?$(?:\n(?:\s*[^\[\s].*|\s*))*?\n(\s*)format\s*=\s*ssh\b`)

// sshSigningFiles returns, for every lifecycle file that is a gitconfig
// (.gitconfig, gitconfig, git/config) setting gpg.format to ssh, the
// position of that setting.
func (in *Input) sshSigningFiles() []spec.Range {
	var out []spec.Range
	for _, f := range in.Files {
		p := f.Path
		if base(p) != ".gitconfig" && base(p) != "gitconfig" && !strings.HasSuffix(p, "/git/config") {
			continue
		}
		m := gitconfigSSHFormat.FindStringSubmatchIndex(f.Content)
		if m == nil {
			continue
		}
		start := m[3] // where format starts, after its indentation
		line := 1 + strings.Count(f.Content[:start], "\n")
		col := start - strings.LastIndexByte(f.Content[:start], '\n')
		out = append(out, spec.Range{Start: in.contentPos(f)(line, col)})
	}
	return out
}

// signingFindings reports a kit that has git sign commits with an SSH key
// (gpg.format ssh, in a hook's git config or a staged gitconfig) without
// an ssh-agent@1 for the runtime phase: commits are signed when they are
// made, in the sandbox's sessions, where no agent is then relayed.
func (in *Input) signingFindings(phases map[string]bool) []Finding {
	if phases["runtime"] {
		return nil
	}
	const msg = "%s configures git to sign commits with an SSH key (gpg.format ssh), which git asks the SSH agent for when a commit is made; the kit declares no ssh-agent@1 for the runtime phase, so signed commits in the sandbox fail"
	const fix = "declare - type: com.docker.sandbox/ssh-agent@1 with config: {phase: runtime}"
	var out []Finding
	for _, h := range in.Hooks {
		for _, c := range hookCommands(h) {
			if configuresSSHSigning(c) {
				out = append(out, Finding{Range: commandRange(in, h, c), Message: fmt.Sprintf(msg, h.Label()), Fix: fix})
			}
		}
	}
	for _, r := range in.sshSigningFiles() {
		out = append(out, Finding{Range: r, Message: fmt.Sprintf(msg, "a staged gitconfig"), Fix: fix})
	}
	return out
}
