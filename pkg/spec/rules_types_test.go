package spec

import "testing"

// The value rules of ssh-agent@1, volume@1, host-mount@1, port@1,
// usb-device@1, resources@1 and lifecycle@1.
func TestTypeRules(t *testing.T) { runRuleCases(t, typeRulesCases) }

var typeRulesCases = []ruleCase{
	{rule: "ssh-agent@1/config", desc: "valid: unbounded install, bounded runtime",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: install}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: false, sign: [git, file], authenticate: [git@github.com, gitlab.com]}
`},
	{rule: "ssh-agent@1/config", desc: "invalid: bounds without unrestricted false, and the reverse",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: install, sign: [git]}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: false}
`,
		want: []diagnostic{
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.unrestricted", Pos: "6:13", Fix: "add it to bound the agent, or remove the lists"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[1].config.unrestricted", Pos: "8:44", Fix: "list what the agent may sign or whom it may authenticate to"},
		},
	},
	{rule: "ssh-agent@1/config", desc: "invalid: values, repeats, IP address, empty list",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/ssh-agent@1
    config:
      phase: runtime
      unrestricted: false
      sign: ["my ns", git, git]
      authenticate: [Git@GitHub.com, 10.0.0.1, "git@192.168.1.1", github.com, github.com]
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: install, unrestricted: false, sign: []}
`,
		want: []diagnostic{
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.sign[0]", Pos: "9:14", Fix: "ssh-agent sign value \"my ns\" is invalid: a namespace is prin"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.sign[2]", Pos: "9:28", Fix: "list it once"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.authenticate[0]", Pos: "10:22", Fix: "ssh-agent authenticate value \"Git@GitHub.com\" is invalid: wr"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.authenticate[1]", Pos: "10:38", Fix: "name the server by its DNS name"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.authenticate[2]", Pos: "10:48", Fix: "name the server by its DNS name"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.authenticate[4]", Pos: "10:79", Fix: "list it once"},
			{Code: "ssh-agent", Ref: "", Field: "capabilities[1].config.sign", Pos: "12:57", Fix: "list its values, or remove sign"},
		},
	},
	{rule: "ks/ssh-agent-phase-dedup", desc: "invalid: runtime twice",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: [install, runtime], unrestricted: false, sign: [git]}
`,
		want: []diagnostic{
			{Code: "ssh-agent-unique", Ref: "", Field: "capabilities[1].config.phase", Pos: "8:21", Fix: "keep one entry per phase"},
		},
	},
	{rule: "ks/parameterized", desc: "ssh-agent presence rules before expansion",
		src: `kind: mixin
args: {ns: {default: git}, open: {default: "true"}}
capabilities:
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: "${{ kit.args.open }}", sign: ["${{ kit.args.ns }}", "a b"]}
`,
		want: []diagnostic{
			{Code: "ssh-agent", Ref: "", Field: "capabilities[0].config.sign[1]", Pos: "7:97", Fix: "ssh-agent sign value \"a b\" is invalid: a namespace is printa"},
		},
	},
	{rule: "volume@1/config", desc: "invalid: relative path, size, mode, missing path, unquoted mode",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/volume@1
    config: {path: data, size: ten, mode: "999"}
  - type: com.docker.sandbox/volume@1
    config: {size: 1g}
  - type: com.docker.sandbox/volume@1
    config: {path: /m, mode: 0755}
  - type: com.docker.sandbox/volume@1
    config: {path: /n, size: 10 GB, mode: "1777", tmpfs: true}
`,
		want: []diagnostic{
			{Code: "volume", Ref: "", Field: "capabilities[0].config.path", Pos: "6:20", Fix: "write it from /"},
			{Code: "volume", Ref: "", Field: "capabilities[0].config.size", Pos: "6:32", Fix: "invalid volume size \"ten\": write a number with an optional u"},
			{Code: "volume", Ref: "", Field: "capabilities[0].config.mode", Pos: "6:43", Fix: "invalid octal mode \"999\": write three or four octal digits a"},
			{Code: "volume", Ref: "", Field: "capabilities[1].config.path", Pos: "8:13", Fix: "volume@1 needs path: the absolute path the volume is mounted"},
			{Code: "wrong-type", Ref: "", Field: "capabilities[2].config.mode", Pos: "10:30", Fix: "quote the value"},
		},
	},
	{rule: "volume@1/no-silent-merge", desc: "invalid: one cleaned path twice, and as a host mount",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/volume@1
    config: {path: /data/, size: 1g}
  - type: com.docker.sandbox/volume@1
    config: {path: /data, size: 2g}
  - type: com.docker.sandbox/host-mount@1
    config: {path: /data}
`,
		want: []diagnostic{
			{Code: "path-unique", Ref: "volume@1/no-silent-merge", Field: "capabilities[1].config.path", Pos: "8:20", Fix: "keep one entry per path"},
			{Code: "path-unique", Ref: "host-mount@1/no-silent-merge", Field: "capabilities[2].config.path", Pos: "10:20", Fix: "a path is one or the other"},
		},
	},
	{rule: "host-mount@1/no-silent-merge", desc: "invalid: host mount path declared twice",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/host-mount@1
    config: {path: /cache}
  - type: com.docker.sandbox/host-mount@1
    config: {path: /cache, mode: "0700"}
`,
		want: []diagnostic{
			{Code: "path-unique", Ref: "host-mount@1/no-silent-merge", Field: "capabilities[1].config.path", Pos: "8:20", Fix: "keep one entry per path"},
		},
	},
	{rule: "host-mount@1/config", desc: "invalid: root, not canonical, empty mode",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/host-mount@1
    config: {path: /}
  - type: com.docker.sandbox/host-mount@1
    config: {path: /a/../b, mode: ""}
`,
		want: []diagnostic{
			{Code: "host-mount", Ref: "", Field: "capabilities[0].config.path", Pos: "6:20", Fix: "host mount path \"/\" must be absolute and canonical (no . or "},
			{Code: "host-mount", Ref: "", Field: "capabilities[1].config.path", Pos: "8:20", Fix: "host mount path \"/a/../b\" must be absolute and canonical (no"},
			{Code: "host-mount", Ref: "", Field: "capabilities[1].config.mode", Pos: "8:35", Fix: "invalid octal mode \"\": write three or four octal digits as a"},
		},
	},
	{rule: "port@1/config", desc: "invalid: range, transport, missing, quoted, repeated",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: 70000, transport: sctp}
  - type: com.docker.sandbox/port@1
    config: {name: web}
  - type: com.docker.sandbox/port@1
    config: {container: "8080"}
  - type: com.docker.sandbox/port@1
    config: {container: 80}
  - type: com.docker.sandbox/port@1
    config: {container: 80, transport: tcp, name: http}
  - type: com.docker.sandbox/port@1
    config: {container: 80, transport: udp}
`,
		want: []diagnostic{
			{Code: "port", Ref: "", Field: "capabilities[0].config.container", Pos: "6:25", Fix: "write a port from 1 to 65535"},
			{Code: "port", Ref: "", Field: "capabilities[0].config.transport", Pos: "6:43", Fix: "transport must be tcp or udp, not \"sctp\""},
			{Code: "port", Ref: "", Field: "capabilities[1].config.container", Pos: "8:13", Fix: "port@1 needs container: the port number the service listens "},
			{Code: "wrong-type", Ref: "", Field: "capabilities[2].config.container", Pos: "10:25", Fix: "write the number without quotes"},
			{Code: "port", Ref: "", Field: "capabilities[4].config.container", Pos: "14:25", Fix: "keep one entry per port and transport"},
		},
	},
	{rule: "usb-device@1/config", desc: "invalid: half an id, both forms, neither",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/usb-device@1
    config: {vendorId: "1050"}
  - type: com.docker.sandbox/usb-device@1
    config: {vendorId: "1050", productId: "0407", class: "03"}
  - type: com.docker.sandbox/usb-device@1
    config: {}
  - type: com.docker.sandbox/usb-device@1
    config: {class: "0e"}
`,
		want: []diagnostic{
			{Code: "usb-device", Ref: "", Field: "capabilities[0].config", Pos: "6:13", Fix: "state both"},
			{Code: "usb-device", Ref: "", Field: "capabilities[1].config", Pos: "8:13", Fix: "declare either vendorId and productId, or class: not both an"},
			{Code: "usb-device", Ref: "", Field: "capabilities[2].config", Pos: "10:13", Fix: "declare either vendorId and productId, or class: not both an"},
		},
	},
	{rule: "resources@1/config", desc: "invalid: negative cpu, memory",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/resources@1
    config: {cpu: -1, memory: lots, gpu: any}
`,
		want: []diagnostic{
			{Code: "resources", Ref: "", Field: "capabilities[0].config.cpu", Pos: "6:19", Fix: "cpu must be 0 or more"},
			{Code: "resources", Ref: "", Field: "capabilities[0].config.memory", Pos: "6:31", Fix: "invalid memory \"lots\": write a number with an optional unit,"},
		},
	},
	{rule: "lifecycle@1/config", desc: "valid: hooks, files, interactive",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: npm install -g tool
          user: "0"
          env: [HTTP_PROXY, HTTPS_PROXY]
      startup:
        - command: [tool, serve]
          background: true
      files:
        - {path: /home/agent/.toolrc, content: "x=1\n", mode: "0644", overwrite: false}
      interactive: [--tui]
`},
	{rule: "lifecycle@1/config", desc: "invalid: empty command, env names, files, install background",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: []
          env: [1BAD, OK]
        - user: root
      startup:
        - command: ""
      files:
        - {path: relative/file, content: x, mode: "8"}
`,
		want: []diagnostic{
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config.install[0].command", Pos: "8:20", Fix: "install[0]: command is required: a shell string or an argv l"},
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config.install[0].env[0]", Pos: "9:17", Fix: "install[0]: env entry \"1BAD\" is not a valid environment vari"},
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config.install[1].command", Pos: "10:11", Fix: "install[1]: command is required: a shell string or an argv l"},
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config.files[0].path", Pos: "14:18", Fix: "write it from /"},
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config.files[0].mode", Pos: "14:51", Fix: "files[0]: invalid octal mode \"8\": write three or four octal "},
		},
	},
	{rule: "lifecycle@1/config", desc: "invalid: nothing declared; background on install",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config: {interactive: []}
  - group:
      capabilities:
        - type: com.docker.sandbox/lifecycle@1
          config: {install: [{command: x, background: true}]}
`,
		want: []diagnostic{
			{Code: "lifecycle", Ref: "", Field: "capabilities[0].config", Pos: "6:13", Fix: "remove the entry instead"},
			{Code: "unknown-field", Ref: "", Field: "capabilities[1].group.capabilities[0].config.install[0].background", Pos: "10:43", Fix: "allowed fields: command, description, env, user"},
		},
	},
}
