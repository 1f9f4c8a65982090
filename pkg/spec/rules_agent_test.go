package spec

import "testing"

// agent-context@1, agent-sessions@1, agent-interactive-sessions@1,
// agent-skills@1, agent-skill@1 and acp@1.
func TestAgentRules(t *testing.T) { runRuleCases(t, agentRulesCases) }

var agentRulesCases = []ruleCase{
	{rule: "agent-context@1/config", desc: "valid: an undirected body and explicit profiles",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: ./context.md}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent/.claude, filename: CLAUDE.md}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent/.codex, filename: AGENTS.md}
`, files: map[string]string{"context.md": "# use the tools\n"}},
	{rule: "agent-context@1/config", desc: "invalid: directory grammar and filename",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {directory: home/agent/, filename: a/b.md}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /x, filename: ".."}
`,
		want: []diagnostic{
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[0].config.directory", Pos: "6:25", Fix: "write it from / without a trailing slash or . and .. segment"},
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[0].config.filename", Pos: "6:48", Fix: "agent-context filename \"a/b.md\" must be a single file name w"},
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[1].config.filename", Pos: "8:13", Fix: "add one, as in filename: AGENTS.md"},
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[2].config.filename", Pos: "10:39", Fix: "agent-context filename \"..\" must be a single file name when "},
		},
	},
	{rule: "agent-context@1/config", desc: "invalid: mixin filename without directory, both bodies, empty",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {filename: AGENTS.md, content: hi, contentFile: ./context.md}
  - group:
      capabilities:
        - type: com.docker.sandbox/agent-context@1
          config: {}
`, files: map[string]string{"context.md": "x\n"},
		want: []diagnostic{
			{Code: "agent-context-body", Ref: "", Field: "capabilities[0].config", Pos: "6:13", Fix: "keep one"},
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[0].config.filename", Pos: "6:24", Fix: "an agent mixin states the directory its profile goes in, as "},
			{Code: "agent-context", Ref: "", Field: "capabilities[1].group.capabilities[0].config", Pos: "10:19", Fix: "give it content, contentFile, filename or directory, or remo"},
		},
	},
	{rule: "agent-context@1/config", desc: "valid: a workload's or set's undirected filename",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {filename: AGENTS.md, content: "Use make test.\n"}
`},
	{rule: "ks/agent-context-arity", desc: "invalid: second undirected entry, second body, same profile",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {filename: AGENTS.md, content: one}
  - type: com.docker.sandbox/agent-context@1
    config: {content: two}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent, filename: X.md}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent/, filename: X.md}
`,
		want: []diagnostic{
			{Code: "agent-context-unique", Ref: "", Field: "capabilities[1].type", Pos: "7:11", Fix: "only explicit profiles (directory + filename) may repeat"},
			{Code: "agent-context-unique", Ref: "", Field: "capabilities[1].config", Pos: "8:13", Fix: "a kit contributes one body, which every profile indexes"},
			{Code: "agent-context-directory", Ref: "", Field: "capabilities[3].config.directory", Pos: "12:25", Fix: "write it from / without a trailing slash or . and .. segment"},
			{Code: "agent-context-unique", Ref: "", Field: "capabilities[3].config.directory", Pos: "12:25", Fix: "keep one entry per profile"},
		},
	},
	{rule: "ks/content-file", desc: "invalid: outside the kit, reserved name, missing",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: ../notes.md}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /a, filename: A.md, contentFile: docs/kit.yaml}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /b, filename: B.md}
  - group:
      capabilities:
        - type: com.docker.sandbox/agent-context@1
          config: {contentFile: missing.md}
`, files: map[string]string{"docs/kit.yaml": "x\n"},
		want: []diagnostic{
			{Code: "content-file-inside-context", Ref: "", Field: "capabilities[0].config.contentFile", Pos: "6:27", Fix: "move the file into it"},
			{Code: "agent-context-unique", Ref: "", Field: "capabilities[1].config", Pos: "8:13", Fix: "a kit contributes one body, which every profile indexes"},
			{Code: "content-file-reserved", Ref: "", Field: "capabilities[1].config.contentFile", Pos: "8:58", Fix: "rename it"},
			{Code: "file-missing", Ref: "", Field: "capabilities[3].group.capabilities[0].config.contentFile", Pos: "14:33", Fix: "contentFile \"missing.md\" does not exist in the kit directory"},
		},
	},
	{rule: "agent-sessions@1/prompt-placeholder-required", desc: "invalid: prompt and resume without placeholders",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-sessions@1
    config: {prompt: [-p], resume: [--resume], continue: [-c], list: ls ~/.sessions}
`,
		want: []diagnostic{
			{Code: "agent-sessions", Ref: "agent-sessions@1/prompt-placeholder-required", Field: "capabilities[0].config.prompt", Pos: "6:22", Fix: "add it where the prompt text goes"},
			{Code: "agent-sessions", Ref: "agent-sessions@1/session-id-placeholder-required", Field: "capabilities[0].config.resume", Pos: "6:36", Fix: "add it where the session id goes"},
		},
	},
	{rule: "agent-sessions@1/session-id-placeholder-required", desc: "valid: placeholders anywhere in an element",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-sessions@1
    config: {prompt: ["--prompt={{.Prompt}}"], resume: [--resume, "{{.SessionID}}"]}
`},
	{rule: "agent-sessions@1/config", desc: "invalid: no verbs (an empty prompt counts as absent)",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-sessions@1
    config: {prompt: []}
`,
		want: []diagnostic{
			{Code: "agent-sessions", Ref: "", Field: "capabilities[0].config", Pos: "6:13", Fix: "state prompt, resume, continue or list, or remove the entry"},
		},
	},
	{rule: "agent-interactive-sessions@1/prompt-placeholder-required", desc: "invalid: stated prompt and resume without placeholders",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {prompt: [], resume: [--resume]}
`,
		want: []diagnostic{
			{Code: "agent-interactive-sessions", Ref: "agent-interactive-sessions@1/prompt-placeholder-required", Field: "capabilities[0].config.prompt", Pos: "6:22", Fix: "add it where the prompt text goes"},
			{Code: "agent-interactive-sessions", Ref: "agent-interactive-sessions@1/session-id-placeholder-required", Field: "capabilities[0].config.resume", Pos: "6:34", Fix: "add it where the session id goes"},
		},
	},
	{rule: "agent-interactive-sessions@1/config", desc: "invalid: no verbs",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {}
`,
		want: []diagnostic{
			{Code: "agent-interactive-sessions", Ref: "", Field: "capabilities[0].config", Pos: "6:13", Fix: "state prompt, resume, continue, newSession, sessionPicker or"},
		},
	},
	{rule: "agent-interactive-sessions@1/new-session-matches-lifecycle-interactive", desc: "invalid: they differ",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config: {interactive: [--tui]}
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {newSession: [--new]}
`,
		want: []diagnostic{
			{Code: "new-session-matches-lifecycle-interactive", Ref: "agent-interactive-sessions@1/new-session-matches-lifecycle-interactive", Field: "capabilities[1].config.newSession", Pos: "8:26", Fix: "they name the same launch, so make them equal or omit newSes"},
		},
	},
	{rule: "agent-interactive-sessions@1/new-session-matches-lifecycle-interactive", desc: "valid: equal; lists in either spelling",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config: {interactive: [--tui]}
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {newSession: [--tui], list: ls /s}
  - type: com.docker.sandbox/agent-sessions@1
    config: {list: [sh, -c, ls /s]}
`},
	{rule: "ks/sessions-list-agree", desc: "invalid: two list commands",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/agent-sessions@1
    config: {list: [tool, sessions]}
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {list: [tool, list]}
`,
		want: []diagnostic{
			{Code: "sessions-list-agree", Ref: "", Field: "capabilities[1].config.list", Pos: "8:20", Fix: "both enumerate the same sessions, so they name one command"},
		},
	},
	{rule: "agent-skills@1/config", desc: "invalid: path, mode, repeated path",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /home/agent/skills/, mode: rw}
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /s}
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /s, mode: readwrite}
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /}
`,
		want: []diagnostic{
			{Code: "agent-skills", Ref: "", Field: "capabilities[0].config.path", Pos: "6:20", Fix: "skills path \"/home/agent/skills/\" must be absolute and canon"},
			{Code: "agent-skills", Ref: "", Field: "capabilities[0].config.mode", Pos: "6:47", Fix: "mode must be readonly or readwrite, not \"rw\""},
			{Code: "agent-skills", Ref: "", Field: "capabilities[2].config.path", Pos: "10:20", Fix: "keep one entry per path"},
			{Code: "agent-skills", Ref: "", Field: "capabilities[3].config.path", Pos: "12:20", Fix: "skills path \"/\" must be absolute and canonical (no . or .. s"},
		},
	},
	{rule: "agent-skill@1/name-valid", desc: "invalid: explicit and derived names",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/skills/review, name: -review}
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/skills/.hidden}
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/skills/x, name: ""}
`,
		want: []diagnostic{
			{Code: "agent-skill", Ref: "agent-skill@1/name-valid", Field: "capabilities[0].config.name", Pos: "6:46", Fix: "rename it with name:"},
			{Code: "agent-skill", Ref: "agent-skill@1/name-valid", Field: "capabilities[1].config.path", Pos: "8:20", Fix: "rename it with name:"},
			{Code: "agent-skill", Ref: "", Field: "capabilities[2].config.name", Pos: "10:41", Fix: "an explicit name must not be empty"},
		},
	},
	{rule: "agent-skill@1/config", desc: "invalid: path, repeated effective name",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/a/review}
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/b/review}
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/c/../d}
  - type: com.docker.sandbox/agent-skill@1
    config: {path: /opt/e, name: null}
`,
		want: []diagnostic{
			{Code: "agent-skill", Ref: "", Field: "capabilities[1].config", Pos: "8:13", Fix: "give one of them another name:"},
			{Code: "agent-skill", Ref: "", Field: "capabilities[2].config.path", Pos: "10:20", Fix: "skill path \"/opt/c/../d\" must be absolute and canonical (no "},
			{Code: "wrong-type", Ref: "", Field: "capabilities[3].config.name", Pos: "12:34", Fix: "write a string, or remove the key"},
		},
	},
	{rule: "acp@1/config-valid", desc: "valid: optional adapter",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: claude, command: [claude-agent-acp], env: {CLAUDE_CODE_EXECUTABLE: /usr/local/bin/claude}, protocolVersion: 1}
`},
	{rule: "acp@1/config-valid", desc: "invalid: agent name, blank command, env, protocol version",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: "claude@1", command: "  ", protocolVersion: 0, env: {"1X": a, B: null}}
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: gemini, command: ["", --acp]}
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: codex}
`,
		want: []diagnostic{
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[0].config.agent", Pos: "7:21", Fix: "agent must be an unversioned provides name, as the agent's k"},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[0].config.command", Pos: "7:42", Fix: "command must name a command: a non-blank string run with sh "},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[0].config.protocolVersion", Pos: "7:65", Fix: "protocolVersion must be 1 or more (omit it for 1)"},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[0].config.env[\"1X\"]", Pos: "7:80", Fix: "use letters, digits and underscores, not starting with a dig"},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[0].config.env.B", Pos: "7:86", Fix: "write a string (\"\" for empty)"},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[1].config.command", Pos: "10:38", Fix: "command must name a command: a non-blank string run with sh "},
			{Code: "acp", Ref: "acp@1/config-valid", Field: "capabilities[2].config.command", Pos: "13:13", Fix: "acp@1 needs command: the command that speaks ACP on stdio, a"},
		},
	},
	{rule: "acp@1/agent-unique", desc: "invalid: one normalized agent twice",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: claude, command: a}
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: com.docker.kit/claude, command: b}
`,
		want: []diagnostic{
			{Code: "acp-agent-unique", Ref: "acp@1/agent-unique", Field: "capabilities[1].config.agent", Pos: "10:21", Fix: "keep one entry per agent"},
		},
	},
	{rule: "acp@1/optional-for-compatibility", desc: "valid: a member of an optional group inherits optional",
		src: `kind: mixin
capabilities:
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/acp@1
          config: {agent: claude, command: claude-agent-acp}
`},
	{rule: "acp@1/optional-for-compatibility", desc: "warning: a member of a required group; the fix goes on the group",
		src: `kind: mixin
capabilities:
  - group:
      capabilities:
        - type: com.docker.sandbox/acp@1
          config: {agent: claude, command: claude-agent-acp}
`,
		want: []diagnostic{
			{Code: "acp-optional", Ref: "acp@1/optional-for-compatibility", Field: "capabilities[0].group", Pos: "6:7", Fix: "set optional: true on its group", Warn: true},
		},
	},
	{rule: "acp@1/optional-for-compatibility", desc: "warning: required adapter",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/acp@1
    config: {agent: claude, command: claude-agent-acp}
`,
		want: []diagnostic{
			{Code: "acp-optional", Ref: "acp@1/optional-for-compatibility", Field: "capabilities[0]", Pos: "5:5", Fix: "an acp@1 entry should be optional: true, so hosts without AC", Warn: true},
		},
	},
}
