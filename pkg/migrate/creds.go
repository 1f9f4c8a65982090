package migrate

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// credRef ties a generated credential to its v2 origin.
type credRef struct {
	v2    *yaml.Node
	field string
	// phase is the generated phase node ("runtime"), turned into a list
	// when an install hook reads the credential.
	phase *yaml.Node
	// name is apiKey.name, the variable the credential sets; "" for none.
	name string
	// injects are the apiKey inject domains, as written.
	injects []string
}

// apiKeyParts returns the variable name and the inject domains of a v2
// apiKey mapping.
func apiKeyParts(v *yaml.Node) (name string, injects []string) {
	if n := deref(lookup(deref(v), "name")); n != nil && n.Kind == yaml.ScalarNode {
		name = n.Value
	}
	if in := deref(lookup(deref(v), "inject")); in != nil && in.Kind == yaml.SequenceNode {
		for _, x := range in.Content {
			if d := deref(lookup(deref(x), "domain")); d != nil && d.Kind == yaml.ScalarNode {
				injects = append(injects, d.Value)
			}
		}
	}
	return name, injects
}

// hostPort splits an allow entry (or inject domain) as the inject check
// of SPEC-v3 §5.1 does: the host is everything before the first colon.
func hostPort(e string) (host, port string) {
	host, port, _ = strings.Cut(e, ":")
	return host, port
}

// allows reports whether the allow list holds host literally, ports aside.
func allows(list *yaml.Node, host string) bool {
	if list == nil {
		return false
	}
	for _, e := range list.Content {
		if h, _ := hostPort(deref(e).Value); h == host {
			return true
		}
	}
	return false
}

// coverInjects adds to each phase's allow list the literal host of every
// inject domain a wildcard entry of that list already covers: v3 wants
// inject domains in the allow list literally (SPEC-v3 §5.1), and the
// host, with the wildcard's port when it has one, grants nothing the
// wildcard did not. A domain no entry covers is left as it is (the
// output does not validate, and says which host to add).
func (m *migrator) coverInjects() {
	for _, c := range m.creds {
		for _, d := range c.injects {
			host, _ := hostPort(d)
			if strings.Contains(d, "${{") || host == "" {
				continue
			}
			for _, phase := range []string{"install", "runtime"} {
				list := m.allow[phase]
				if list == nil || allows(list, host) {
					continue
				}
				for _, e := range list.Content {
					wh, wp := hostPort(deref(e).Value)
					if !strings.HasPrefix(wh, "*.") || !spec.HostNameCovers(wh, host) {
						continue
					}
					entry := host
					if wp != "" {
						entry += ":" + wp
					}
					list.Content = append(list.Content, scalar(entry))
					m.note(c.v2, c.field, "inject-domain-allowed",
						fmt.Sprintf("%s was added to the %s allow list: %s already allowed it, and v3 wants an inject domain there literally", entry, phase, deref(e).Value))
					break
				}
			}
		}
	}
}

// credentialPhases keeps in the install phase too every credential whose
// variable an install hook's env lists: v2 hooks had the credential, and
// the install phase already allows its inject domains, so nothing widens.
// When the install phase does not allow them, it is an action. It reports
// whether it changed anything.
func (m *migrator) credentialPhases() bool {
	changed := false
	for _, c := range m.creds {
		if c.name == "" {
			continue
		}
		var readers []string
		for i, h := range m.hookRefs["install"] {
			for _, n := range h.declared {
				if n == c.name {
					readers = append(readers, fmt.Sprintf("install[%d]", i))
				}
			}
		}
		if len(readers) == 0 {
			if m.hasInstall {
				m.note(c.v2, c.field, "credential-phase", "the credential is available at runtime only: no install hook's script names $"+c.name+
					"; if one of its programs reads it anyway (gh reads GH_TOKEN), add install to the credential's phase and the hook's env")
			}
			continue
		}
		var missing []string
		for _, d := range c.injects {
			if host, _ := hostPort(d); !allows(m.allow["install"], host) {
				missing = append(missing, d)
			}
		}
		hooks := strings.Join(readers, ", ")
		if len(missing) > 0 {
			m.notes = append(m.notes, Note{Pos: m.pos(c.v2), Field: c.field, Code: "credential-install", Action: true,
				Message: fmt.Sprintf("hook %s reads $%s, but the credential is runtime-only and the install phase does not allow its inject domain %s: "+
					"allowing it there would grant what v2 did not declare; decide whether the hook needs it", hooks, c.name, strings.Join(missing, ", "))})
			continue
		}
		c.phase.Kind, c.phase.Tag, c.phase.Value, c.phase.Style = yaml.SequenceNode, "!!seq", "", yaml.FlowStyle
		c.phase.Content = []*yaml.Node{scalar("install"), scalar("runtime")}
		changed = true
		m.note(c.v2, c.field, "credential-install",
			fmt.Sprintf("kept in the install phase too, since hook %s reads $%s: v2 hooks had the credential, and install already allows its inject domains", hooks, c.name))
	}
	return changed
}
