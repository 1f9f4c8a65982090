package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// The property a migration lives by: composed with the same kits, the v3
// output never grants more than the v2 kit did, phase by phase (network
// allow and deny, credentials, mounts, ports, privilege, everything else on
// the permission surface). The v2 side is a reference model written here
// from SPEC-v2, independent of the migrator: v2 had one network list for
// everything (so each enforced allow and deny entry counts in both
// phases), credentials reached hooks and the agent alike (both phases),
// and the entries SPEC-v2 §5.2 declared but did not enforce granted and
// denied nothing. Both compositions are resolved, and their surfaces
// compared, with pkg/review.

// contexts are the kits a migrated kit is composed with: workloads, with
// and without install hooks, for a mixin; mixins for a workload.
var contexts = map[string][]string{
	spec.KindMixin: {
		`schemaVersion: "3"
kind: workload
capabilities:
  - type: com.docker.sandbox/sbx@1
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime: {allow: [api.example.org]}
`,
		`schemaVersion: "3"
kind: workload
capabilities:
  - type: com.docker.sandbox/sbx@1
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: [pypi.org, files.pythonhosted.org, telemetry.example.org]}
      runtime: {allow: [pypi.org]}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: pip install tool
          env: [HTTP_PROXY, HTTPS_PROXY]
`,
		`schemaVersion: "3"
kind: workload
capabilities:
  - type: com.docker.sandbox/sbx@1
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["*"]}
      runtime: {allow: ["**"]}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: curl -fsSL https://example.org/i.sh | sh
          env: [HTTP_PROXY, HTTPS_PROXY]
`,
	},
	spec.KindWorkload: {
		`schemaVersion: "3"
kind: mixin
`,
		`schemaVersion: "3"
kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["*"]}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: curl -fsSL https://example.org/i.sh | sh
          env: [HTTP_PROXY, HTTPS_PROXY]
`,
	},
}

// corpusKit is one v2 kit of the corpora.
type corpusKit struct {
	name string
	fsys fs.FS
	dir  string
	src  []byte
}

// corpora returns the golden v2 kits (with their files) and the fuzz
// corpus's descriptors.
func corpora(t *testing.T) []corpusKit {
	t.Helper()
	var out []corpusKit
	for _, row := range rows(t) {
		fsys := os.DirFS(filepath.Join("testdata", row))
		src, err := fs.ReadFile(fsys, "v2/"+SpecFile)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusKit{name: row, fsys: fsys, dir: "v2", src: src})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzMigrate", "*"))
	for _, f := range files {
		src, err := readFuzzEntry(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, corpusKit{name: "fuzz/" + filepath.Base(f), fsys: fstest.MapFS{"kit/spec.yaml": {Data: src}}, dir: "kit", src: src})
	}
	return out
}

// readFuzzEntry reads a corpus file of go test fuzz v1 holding one []byte.
func readFuzzEntry(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitN(string(b), "\n", 2)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, errors.New("not a go test fuzz v1 file")
	}
	v := strings.TrimSpace(lines[1])
	q, ok := strings.CutPrefix(v, "[]byte(")
	if !ok || !strings.HasSuffix(q, ")") {
		return nil, fmt.Errorf("not a []byte value: %.40s", v)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
	return []byte(s), err
}

func TestNeverWiderThanV2(t *testing.T) {
	checked := 0
	for _, c := range corpora(t) {
		t.Run(c.name, func(t *testing.T) {
			res, err := Migrate(context.Background(), c.fsys, c.dir)
			if err != nil {
				if errors.Is(err, ErrNotV2) {
					return
				}
				t.Fatal(err)
			}
			checkNeverWider(t, res, c.src)
			checked++
		})
	}
	if checked < 30 {
		t.Fatalf("only %d kits checked; the property proves little", checked)
	}
}

// checkNeverWider fails t when the migrated kit, composed with any of the
// contexts, grants more than the v2 kit src composed with the same.
func checkNeverWider(t testing.TB, res *Result, src []byte) {
	t.Helper()
	mem := fstest.MapFS{}
	for _, f := range res.Files {
		mem[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	if err := yaml.Unmarshal(res.Files[0].Data, &yaml.Node{}); err != nil {
		t.Fatalf("the output is not YAML: %v\n%s", err, res.Files[0].Data)
	}
	k, err := spec.Load(mem, res.Stem+".yaml")
	if err != nil {
		t.Fatalf("the output does not load: %v", err)
	}
	if k.Descriptor == nil { // it decodes to no descriptor (a YAML tag v3 refuses): it grants nothing
		if !res.NeedsHuman() {
			t.Fatalf("an output that decodes to no descriptor is reported done:\n%s", res.Files[0].Data)
		}
		return
	}
	v3 := &review.Kit{Name: "v3", Descriptor: k.Descriptor}
	if eff, err := v3.Effective(nil); err == nil {
		v3 = eff
	}
	ref, kind := v2Reference(t, src)
	if kind != "" && k.Descriptor.Kind != kind {
		t.Fatalf("kind %q, want %q", k.Descriptor.Kind, kind)
	}
	if kind != spec.KindWorkload {
		kind = spec.KindMixin // no kind, or not one v2 knows: composed as a mixin
	}
	for i, ctxSrc := range append([]string{""}, contexts[kind]...) {
		kits3, kitsRef := []*review.Kit{v3}, []*review.Kit{ref}
		if ctxSrc != "" {
			ck, err := spec.Parse(fmt.Sprintf("context%d.yaml", i), []byte(ctxSrc))
			if err != nil || ck.Descriptor == nil || len(ck.Descriptor.Capabilities) == 0 && strings.Contains(ctxSrc, "capabilities") {
				t.Fatalf("context %d does not parse: %v", i, err)
			}
			other := &review.Kit{Name: "context", Descriptor: ck.Descriptor}
			kits3, kitsRef = []*review.Kit{other, v3}, []*review.Kit{other, ref}
		}
		r3, err := review.Resolve(kits3, review.WithoutWorkload())
		if err != nil {
			t.Fatal(err)
		}
		rRef, err := review.Resolve(kitsRef, review.WithoutWorkload())
		if err != nil {
			t.Fatal(err)
		}
		wider, _ := review.DiffSurfaces(rRef.Surface, r3.Surface)
		for _, w := range wider {
			if coveredAllow(w, rRef.Surface) {
				continue // a literal host a v2 wildcard allowed already
			}
			t.Errorf("composed with context %d, the v3 kit grants %s %q the v2 kit did not\nv3:\n%s", i, w.Category, w.Detail, res.Files[0].Data)
		}
	}
}

// coveredAllow reports a new allow entry that an allow entry of the same
// phase in the reference covers: same port (or a portless reference
// entry), and a host the reference's single-label wildcard matches as
// the proxy does.
func coveredAllow(w review.Change, ref *spec.Surface) bool {
	var list []string
	switch w.Category {
	case "network.install.allow":
		list = ref.NetworkInstallAllow
	case "network.runtime.allow":
		list = ref.NetworkRuntimeAllow
	default:
		return false
	}
	host, port, _ := strings.Cut(w.Detail, ":")
	for _, e := range list {
		eh, ep, _ := strings.Cut(e, ":")
		if (ep == "" || ep == port) && strings.HasPrefix(eh, "*.") && spec.HostNameCovers(eh, host) {
			return true
		}
	}
	return false
}

// v2Enforced matches the network entry forms SPEC-v2 §5.2 enforced: an
// exact host (a name, an IPv4 or bracketed IPv6 address) or a single-label
// wildcard, with or without a numeric port; and a bare IPv6 address.
var v2Enforced = regexp.MustCompile(`^((\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*|\[[0-9A-Fa-f:.]+\])(:[0-9]+)?$|^[0-9A-Fa-f]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$`)

var argRef = regexp.MustCompile(`\$\{\{\s*kit\.args\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

// v2Reference models what the v2 kit src grants, as a v3 kit: its
// enforced network entries (kit arg references expanded with their
// defaults) in both phases, its credentials in both phases, its volumes,
// ports and privilege. A field of the wrong shape grants nothing.
func v2Reference(t testing.TB, src []byte) (*review.Kit, string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		t.Fatalf("the v2 document does not decode: %v", err)
	}
	root := doc.Content[0]
	kind := ""
	switch v := get(root, "kind"); {
	case v != nil && v.Value == "sandbox":
		kind = spec.KindWorkload
	case v != nil && v.Value == "mixin":
		kind = spec.KindMixin
	}
	defaults := map[string]string{}
	if args := get(root, "args"); args != nil && args.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(args.Content); i += 2 {
			if d := get(args.Content[i+1], "default"); d != nil && d.Kind == yaml.ScalarNode {
				defaults[args.Content[i].Value] = d.Value
			}
		}
	}
	expand := func(s string) string {
		return argRef.ReplaceAllStringFunc(s, func(m string) string {
			if d, ok := defaults[argRef.FindStringSubmatch(m)[1]]; ok {
				return d
			}
			return m
		})
	}
	var caps []any
	net := map[string]any{}
	for _, list := range []string{"allow", "deny"} {
		var kept []string
		for _, e := range strs(get(get(get(root, "permissions"), "network"), list)) {
			if e = expand(e); v2Enforced.MatchString(e) || argRef.MatchString(e) {
				kept = append(kept, e)
			}
		}
		if len(kept) > 0 {
			net[list] = kept
		}
	}
	if len(net) > 0 {
		caps = append(caps, map[string]any{"type": spec.TypeNetworkPolicy, "config": map[string]any{"install": net, "runtime": net}})
	}
	for _, c := range seq(get(root, "credentials")) {
		if s := get(c, "service"); s != nil && s.Kind == yaml.ScalarNode {
			caps = append(caps, map[string]any{"type": spec.TypeCredential, "config": v2Credential(s.Value, c)})
		}
	}
	for _, v := range seq(get(root, "volumes")) {
		p := get(v, "path")
		if ty := get(v, "type"); p == nil || p.Kind != yaml.ScalarNode || ty != nil && ty.Value != "" && ty.Value != "tmpfs" {
			continue
		}
		caps = append(caps, map[string]any{"type": spec.TypeVolume, "config": map[string]any{"path": p.Value}})
	}
	for _, p := range seq(get(root, "ports")) {
		c := get(p, "container")
		n, err := strconv.Atoi(scalarValue(c))
		proto := strings.ToLower(scalarValue(get(p, "protocol")))
		if err != nil || proto != "" && proto != "tcp" && proto != "udp" {
			continue
		}
		cfg := map[string]any{"container": n}
		if proto != "" {
			cfg["transport"] = proto
		}
		caps = append(caps, map[string]any{"type": spec.TypePort, "config": cfg})
	}
	if p := get(get(root, "security"), "privileged"); p != nil && p.Tag == "!!bool" && p.Value == "true" {
		caps = append(caps, map[string]any{"type": spec.TypePrivileged})
	}
	d := map[string]any{"schemaVersion": "3", "kind": kind, "capabilities": caps}
	if kind == "" {
		d["kind"] = spec.KindMixin
	}
	b, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	k, err := spec.Parse("v2.yaml", b)
	if err != nil || k.Descriptor == nil {
		t.Fatalf("the reference does not parse: %v\n%s", err, b)
	}
	return &review.Kit{Name: "v2", Descriptor: k.Descriptor}, kind
}

// v2Credential models a v2 credential in both phases: the hosts its
// secret is presented to (apiKey inject domains, the OAuth token endpoint
// and resource hosts) and whether its value enters the sandbox (an apiKey
// name without proxyManaged: true, read as v3 reads the same fields).
func v2Credential(service string, c *yaml.Node) map[string]any {
	cfg := map[string]any{"service": service, "phase": []string{"install", "runtime"}}
	if k := get(c, "apiKey"); k != nil {
		ak := map[string]any{}
		if n := get(k, "name"); n != nil && n.Kind == yaml.ScalarNode {
			ak["name"] = n.Value
		}
		if p := get(k, "proxyManaged"); p != nil && p.Tag == "!!bool" {
			ak["proxyManaged"] = p.Value == "true"
		}
		var inject []any
		for _, in := range seq(get(k, "inject")) {
			if d := get(in, "domain"); d != nil && d.Kind == yaml.ScalarNode {
				inject = append(inject, map[string]any{"domain": d.Value})
			}
		}
		if inject != nil {
			ak["inject"] = inject
		}
		cfg["apiKey"] = ak
	}
	if o := get(c, "oauth"); o != nil {
		oa := map[string]any{}
		if h := get(get(o, "tokenEndpoint"), "host"); h != nil && h.Kind == yaml.ScalarNode {
			oa["tokenEndpoint"] = map[string]any{"host": h.Value}
		}
		if r := strs(get(o, "resourceHosts")); r != nil {
			oa["resourceHosts"] = r
		}
		cfg["oauth"] = oa
	}
	if cfg["apiKey"] == nil && cfg["oauth"] == nil {
		cfg["apiKey"] = map[string]any{"name": "UNSET", "proxyManaged": true} // grants the service alone
	}
	return cfg
}

// get returns the first value of key in the mapping n (aliases
// resolved), or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

func seq(n *yaml.Node) []*yaml.Node {
	if n = deref(n); n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func strs(n *yaml.Node) []string {
	var out []string
	for _, x := range seq(n) {
		if x = deref(x); x.Kind == yaml.ScalarNode && x.Tag != "!!null" { // v2 read any scalar as a string
			out = append(out, x.Value)
		}
	}
	return out
}

func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// TestNeverWiderRealKits runs the property over real v2 kits outside the
// repository: KITSMITH_MIGRATE_KITS names a file listing one kit directory
// a line (skipped when unset). No such kit is kept in the repository.
func TestNeverWiderRealKits(t *testing.T) {
	list := os.Getenv("KITSMITH_MIGRATE_KITS")
	if list == "" {
		t.Skip("KITSMITH_MIGRATE_KITS is not set")
	}
	b, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(b)) {
		t.Run(dir, func(t *testing.T) {
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			res, err := Migrate(context.Background(), root.FS(), ".", WithDisplayDir(dir))
			if err != nil {
				t.Skipf("not migrated: %v", err)
			}
			src, err := fs.ReadFile(root.FS(), SpecFile)
			if err != nil {
				t.Fatal(err)
			}
			checkNeverWider(t, res, src)
		})
	}
}
