package review

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

const workload = "kind: workload\nbuild: \"FROM scratch\\nCMD [\\\"x\\\"]\\n\"\n"

func kits(t *testing.T, bodies ...string) []*Kit {
	t.Helper()
	out := make([]*Kit, len(bodies))
	for i, b := range bodies {
		name, body, _ := strings.Cut(b, "\n")
		out[i] = source(t, name, body)
	}
	return out
}

func ids(ps []Problem) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// Each resolution failure, named by its conformance id, and compositions
// the rules accept.
func TestResolveProblems(t *testing.T) {
	tests := []struct {
		name  string
		kits  []string
		opts  []ResolveOption
		want  []string
		order []string
		notes int
	}{
		{name: "a composition that resolves, providers first", kits: []string{
			"m.yaml\nkind: mixin\nrequires: [\"com.example/base >= 1\"]\n",
			"w.yaml\n" + workload + "provides: [\"com.example/base@1.2\"]\n"},
			order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseOneWorkload + " (two)", kits: []string{"a.yaml\n" + workload, "b.yaml\n" + workload},
			want: []string{spec.CaseOneWorkload}, order: []string{"a.yaml", "b.yaml"}},
		{name: spec.CaseOneWorkload + " (none)", kits: []string{"a.yaml\nkind: mixin\n"},
			want: []string{spec.CaseOneWorkload}, order: []string{"a.yaml"}},
		{name: "a set needs no workload", kits: []string{"a.yaml\nkind: mixin\n"}, opts: []ResolveOption{WithoutWorkload()},
			order: []string{"a.yaml"}},
		{name: spec.CaseOneProvider, kits: []string{
			"w.yaml\n" + workload + "provides: [claude@2]\n", "m.yaml\nkind: mixin\nprovides: [\"com.docker.kit/claude@2.1\"]\n"},
			want: []string{spec.CaseOneProvider}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseConflictsFail, kits: []string{
			"w.yaml\n" + workload + "provides: [podman@5]\n", "m.yaml\nkind: mixin\nconflicts: [podman]\n"},
			want: []string{spec.CaseConflictsFail}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseIntegrates, kits: []string{
			"w.yaml\n" + workload + "provides: [docker-engine@24.0]\n", "m.yaml\nkind: mixin\nintegrates: [\"docker-engine >= 25\"]\n"},
			want: []string{spec.CaseIntegrates}, order: []string{"w.yaml", "m.yaml"}},
		{name: "an absent integrates provider is fine", kits: []string{
			"w.yaml\n" + workload, "m.yaml\nkind: mixin\nintegrates: [\"docker-engine >= 25\"]\n"},
			order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseClosedSet + " (nothing provides it)", kits: []string{
			"w.yaml\n" + workload, "m.yaml\nkind: mixin\nrequires: [com.example/node]\n"},
			want: []string{spec.CaseClosedSet}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseClosedSet + " (a version that does not meet it)", kits: []string{
			"w.yaml\n" + workload + "provides: [com.example/node@18.2]\n", "m.yaml\nkind: mixin\nrequires: [\"com.example/node >= 20, < 21\"]\n"},
			want: []string{spec.CaseClosedSet}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseClosedSet + " (an unversioned provide meets only an unconstrained require)", kits: []string{
			"w.yaml\n" + workload + "provides: [com.example/node]\n", "m.yaml\nkind: mixin\nrequires: [\"com.example/node >= 20\"]\n"},
			want: []string{spec.CaseClosedSet}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseDependencyOrder + " (a circle)", kits: []string{
			"w.yaml\n" + workload + "provides: [com.example/a@1]\nrequires: [com.example/b]\n",
			"m.yaml\nkind: mixin\nprovides: [com.example/b@1]\nrequires: [com.example/a]\n"},
			want: []string{spec.CaseDependencyOrder}, order: []string{}},
		{name: spec.CaseVolumeNoMerge, kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data, size: 1g}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data, size: 2g}\n"},
			want: []string{spec.CaseVolumeNoMerge}, order: []string{"w.yaml", "m.yaml"}},
		{name: "volume@1/matching-requests-merge", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data, size: 1g}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data/, size: 1024m}\n"},
			order: []string{"w.yaml", "m.yaml"}, notes: 1},
		{name: spec.CaseHostMountNoMerge + " (host mount against volume)", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /cache}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/host-mount@1\n    config: {path: /cache}\n"},
			want: []string{spec.CaseHostMountNoMerge}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseHostMountNoMerge + " (identical host mounts)", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/host-mount@1\n    config: {path: /cache}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/host-mount@1\n    config: {path: /cache}\n"},
			want: []string{spec.CaseHostMountNoMerge}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseLifecycleShared + " (two interactive tails)", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [bash]}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [zsh]}\n"},
			want: []string{spec.CaseLifecycleShared}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseLifecycleShared + " (one file path)", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {files: [{path: /etc/x, content: a}]}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {files: [{path: /etc/./x, content: b}]}\n"},
			want: []string{spec.CaseLifecycleShared}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseACPComposition, kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: claude-acp}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: other-acp}\n"},
			want: []string{spec.CaseACPComposition}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseSingletonRestated, kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/resources@1\n    config: {cpu: 2}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/resources@1\n    config: {cpu: 4}\n"},
			want: []string{spec.CaseSingletonRestated}, order: []string{"w.yaml", "m.yaml"}},
		{name: spec.CaseDifferentConfigs, kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/port@1\n    config: {container: 80, name: web}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/port@1\n    config: {container: 80, name: site}\n"},
			want: []string{spec.CaseDifferentConfigs}, order: []string{"w.yaml", "m.yaml"}},
		{name: "network-policy @1 and @2 across kits merge as @2", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config: {runtime: {allow: [a.example.org]}}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n" + np + "      runtime: {allow: [{hosts: [b.example.org], methods: [GET]}]}\n"},
			order: []string{"w.yaml", "m.yaml"}, notes: 1},
		{name: CaseGroupConflicts + " (only with the groups selected)", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - group:\n      name: interactive\n      optional: true\n      capabilities:\n        - type: com.docker.sandbox/lifecycle@1\n          config: {interactive: [bash]}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [zsh]}\n"},
			opts: []ResolveOption{WithSelection(Selection{All: true})},
			want: []string{spec.CaseLifecycleShared}, order: []string{"w.yaml", "m.yaml"}},
		{name: "unselected groups are not judged", kits: []string{
			"w.yaml\n" + workload + "capabilities:\n  - group:\n      name: interactive\n      optional: true\n      capabilities:\n        - type: com.docker.sandbox/lifecycle@1\n          config: {interactive: [bash]}\n",
			"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [zsh]}\n"},
			order: []string{"w.yaml", "m.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(kits(t, tc.kits...), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				tc.want = []string{}
			}
			if diff := cmp.Diff(tc.want, ids(r.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%+v", diff, r.Problems)
			}
			if diff := cmp.Diff(tc.order, r.Order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if len(r.Notes) != tc.notes {
				t.Errorf("notes = %q, want %d", r.Notes, tc.notes)
			}
			if r.OK() != (len(tc.want) == 0) {
				t.Errorf("OK() = %v", r.OK())
			}
		})
	}
}

// The merged surface is the union of the selected contributions, and a
// group-only problem says so.
func TestResolveSurfaceAndGroups(t *testing.T) {
	ks := kits(t,
		"w.yaml\n"+workload+"capabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config: {runtime: {allow: [a.example.org]}}\n"+
			"  - group:\n      name: cache\n      optional: true\n      capabilities:\n        - type: com.docker.sandbox/host-mount@1\n          config: {path: /cache}\n",
		"m.yaml\nkind: mixin\ncapabilities:\n"+np+"      runtime: {allow: [b.example.org]}\n")
	r, err := Resolve(ks)
	if err != nil {
		t.Fatal(err)
	}
	want := &spec.Surface{NetworkRuntimeAllow: []string{"a.example.org", "b.example.org"},
		NetworkRuntimeHTTPAllow: []string{"ANY a.example.org/**", "ANY b.example.org/**"}}
	if diff := cmp.Diff(want, r.Surface); diff != "" {
		t.Errorf("surface (-want +got):\n%s", diff)
	}
	r, err = Resolve(ks, WithSelection(Selection{Names: []string{"cache"}}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/cache"}, r.Surface.HostMountPaths); diff != "" || len(r.Groups) != 1 {
		t.Errorf("host mounts (-want +got):\n%s; groups %v", diff, r.Groups)
	}
	_, err = Resolve(ks, WithSelection(Selection{Names: []string{"nope"}}))
	var ge *UnknownGroupError
	if !errors.Is(err, ErrUnknownGroup) || !errors.As(err, &ge) || ge.Name != "nope" || strings.Contains(err.Error(), "--") {
		t.Errorf("unknown group: err = %v, want an *UnknownGroupError for nope that names no flag", err)
	}
	if _, err := Resolve(ks, WithSelection(Selection{All: true, Names: []string{"cache"}})); err == nil {
		t.Error("all and names together were accepted")
	}
}

func TestWriteResolution(t *testing.T) {
	r, err := Resolve(kits(t,
		"w.yaml\n"+workload+"provides: [\"com.example/base@1.2\"]\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [bash]}\n",
		"m.yaml\nkind: mixin\nrequires: [\"com.example/base >= 1\", com.example/node]\ncapabilities:\n"+np+"      runtime: {allow: [b.example.org]}\n"+
			"  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [zsh]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{{FormatText, "resolve.txt"}, {FormatJSON, "resolve.json"}, {FormatMarkdown, "resolve.md"}} {
		var b bytes.Buffer
		if err := WriteResolution(&b, r, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, "resolve/"+f.file, b.Bytes())
	}
}

// SPEC-v3 §7.1.1/conflicts: a problem only selected optional groups cause
// is reported, marked and attributed to the groups that cause it; one the
// required declarations already cause is not.
func TestResolveGroupConflicts(t *testing.T) {
	ks := groupKits(t)
	type got struct {
		ID     string
		Groups []string
	}
	tests := []struct {
		name string
		sel  Selection
		want []got
	}{
		{name: "nothing selected, nothing refused", sel: Selection{}, want: []got{}},
		{name: "one group causes it", sel: Selection{Names: []string{"cache", "quiet"}},
			want: []got{{spec.CaseHostMountNoMerge, []string{"w.yaml: cache"}}}},
		{name: "two groups cause it only together", sel: Selection{Names: []string{"bash", "zsh"}},
			want: []got{{spec.CaseLifecycleShared, []string{"w.yaml: bash", "m.yaml: zsh"}}}},
		{name: "all selected: each problem names its groups", sel: Selection{All: true}, want: []got{
			{spec.CaseHostMountNoMerge, []string{"w.yaml: cache"}},
			{spec.CaseLifecycleShared, []string{"w.yaml: bash", "m.yaml: zsh"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(ks, WithSelection(tc.sel))
			if err != nil {
				t.Fatal(err)
			}
			g := []got{}
			for _, p := range r.Problems {
				if !p.FromGroups || !strings.Contains(p.Message, CaseGroupConflicts) || !strings.Contains(p.Message, p.Groups[0]) {
					t.Errorf("problem not marked as caused by %v: %+v", p.Groups, p)
				}
				g = append(g, got{p.ID, p.Groups})
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	// a problem the required declarations cause is not the groups'
	base := kits(t, "w.yaml\n"+workload+"capabilities:\n  - type: com.docker.sandbox/host-mount@1\n    config: {path: /cache}\n"+optionalGroup("quiet", "        - type: com.docker.sandbox/resources@1\n          config: {cpu: 1}\n"),
		"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /cache, size: 1g}\n")
	r, err := Resolve(base, WithSelection(Selection{All: true}))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].FromGroups || r.Problems[0].Groups != nil {
		t.Errorf("problems = %+v, want one not from groups", r.Problems)
	}
}

// optionalGroup renders an optional group of one member.
func optionalGroup(name, member string) string {
	return "  - group:\n      name: " + name + "\n      optional: true\n      capabilities:\n" + member
}

// groupKits is a workload whose optional groups cache (a host mount at
// /cache) and bash (an interactive tail) conflict with a mixin's volume at
// /cache and its optional group zsh; its group quiet conflicts with
// nothing.
func groupKits(t *testing.T) []*Kit {
	t.Helper()
	interactive := func(sh string) string {
		return "        - type: com.docker.sandbox/lifecycle@1\n          config: {interactive: [" + sh + "]}\n"
	}
	return kits(t,
		"w.yaml\n"+workload+"capabilities:\n"+
			optionalGroup("cache", "        - type: com.docker.sandbox/host-mount@1\n          config: {path: /cache}\n")+
			optionalGroup("bash", interactive("bash"))+
			optionalGroup("quiet", "        - type: com.docker.sandbox/resources@1\n          config: {cpu: 1}\n"),
		"m.yaml\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /cache, size: 1g}\n"+
			optionalGroup("zsh", interactive("zsh")))
}

// The text and markdown of group-only problems say which group causes
// which problem.
func TestWriteResolutionGroups(t *testing.T) {
	r, err := Resolve(groupKits(t), WithSelection(Selection{All: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{{FormatText, "groups.txt"}, {FormatMarkdown, "groups.md"}} {
		var b bytes.Buffer
		if err := WriteResolution(&b, r, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, "resolve/"+f.file, b.Bytes())
	}
}
