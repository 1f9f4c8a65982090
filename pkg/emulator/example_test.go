package emulator_test

import (
	"os"

	"github.com/kitsmith/kitsmith/pkg/emulator"
)

// A report as emulator.Run returns it, written for a terminal: one line
// per hook, each refusal with the entry to add, the tally and what the
// emulation does not reproduce.
func ExampleReport_WriteText() {
	rep := &emulator.Report{
		Platform: "linux/amd64",
		Order:    []string{"shell", "tool"},
		Hooks: []emulator.HookResult{
			{Kit: "shell", Phase: emulator.PhaseInstall, Description: "fetch the CLI", User: "0", Exit: 0, DurationMS: 42,
				Connections: []emulator.Connection{{Host: "dl.example.org", Port: 443, Path: "forward", Allowed: true, Entry: "dl.example.org:443"}}},
			{Kit: "tool", Phase: emulator.PhaseStartup, Description: "register", User: "1000", Exit: 1, DurationMS: 7,
				Connections: []emulator.Connection{{Host: "api.example.org", Port: 443, Path: "transparent",
					Fix: `add "api.example.org:443" to the network-policy runtime allow list`}},
				Output: "curl: (35) Recv failure: Connection reset by peer\n"},
		},
		Scope:       emulator.Scope,
		NotEmulated: []string{"lifecycle files", "the entrypoint"},
	}
	rep.WriteText(os.Stdout)
	// Output:
	// shell install[0] (fetch the CLI) as 0: ok in 42 ms
	// tool startup[0] (register) as 1000: failed: exit 1 in 7 ms
	//   refused api.example.org:443 (transparent): add "api.example.org:443" to the network-policy runtime allow list
	//   | curl: (35) Recv failure: Connection reset by peer
	// 2 hooks run on linux/amd64: 1 passed, 1 failed; consistent with the specification as kitsmith reads it; not a run under sbx
	// not emulated: lifecycle files; the entrypoint
}
