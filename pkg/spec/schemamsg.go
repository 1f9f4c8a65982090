package spec

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/kitsmith/kitsmith/internal/suggest"
)

var defaultPrinter = message.NewPrinter(language.English)

// describeField names a field for a message.
func describeField(f string) string {
	if f == "" {
		return "the descriptor"
	}
	return f
}

// refFor returns the TCK case id a schema violation at loc belongs to, when
// the specification names one.
func refFor(loc []string, _ any) string {
	n := len(loc)
	if n == 0 {
		return ""
	}
	switch loc[0] {
	case "schemaVersion":
		return "SPEC-v3 §4/schema-version-3"
	case "kits":
		if n >= 3 && loc[2] == "ref" {
			return "SPEC-v3 §3.4/kit-published-reference"
		}
	case "capabilities":
		last := loc[n-1]
		switch {
		case n >= 3 && loc[2] == "group":
			// the group's own fields and its members' place in it; not
			// what the members' configs say
			if n <= 4 || n == 6 && (last == "optional" || last == "group") {
				return "SPEC-v3 §7.1.1/group-grammar"
			}
			if n == 6 && last == "name" {
				return "SPEC-v3 §7/name-round-trip"
			}
		case last == "name" && n == 3:
			return "SPEC-v3 §7/name-round-trip"
		}
	}
	return ""
}

// requiredHints says what to write for a required field that is missing.
var requiredHints = map[string]string{
	"schemaVersion": `add schemaVersion: "3"`,
	"kind":          "add kind: workload, mixin or set",
	"type":          "add type: <namespace>/<name>@<version>, as in com.docker.sandbox/network-policy@1",
	"ref":           "add ref: the registry reference the kit is published at",
	"capabilities":  "list the group's members under capabilities:",
	"config":        "add config: with the fields the type needs",
	"phase":         "add phase: install, runtime, or a list of both",
	"service":       "add service: the host credential store key, as in github",
	"path":          "add path: an absolute path",
	"domain":        "add domain: the host whose requests get the header",
	"hosts":         "add hosts: the hosts the entry covers",
	"command":       "add command: a shell string or an argv list",
}

// v2Hints explains v2 descriptor fields that v3 replaced (SPEC-v3 migration
// table).
var v2Hints = map[string]string{
	"name":              "v3 has no name field: the kit is named by its file stem and its reference; remove it",
	"sourceURL":         "the v3 spelling is sourceUrl",
	"iconURL":           "the v3 spelling is iconUrl",
	"sandbox":           "v3 takes the image from the recipe (FROM, ENTRYPOINT, CMD in the companion Dockerfile)",
	"command":           "v3 takes the command from the recipe's ENTRYPOINT/CMD; the interactive command is lifecycle@1 interactive",
	"environment":       "v3 sets environment variables with ENV in the recipe",
	"permissions":       "v3 declares network access with a com.docker.sandbox/network-policy@1 capability, split by phase",
	"credentials":       "v3 declares each credential as a com.docker.sandbox/credential@1 capability",
	"volumes":           "v3 declares volumes as com.docker.sandbox/volume@1 capabilities",
	"ports":             "v3 declares ports as com.docker.sandbox/port@1 capabilities (protocol is now transport)",
	"setup":             "v3 runs setup as com.docker.sandbox/lifecycle@1 hooks",
	"agentInstructions": "v3 ships agent instructions as a com.docker.sandbox/agent-context@1 capability",
	"caps":              "v3 declares capabilities in the capabilities: list",
}

// fieldHint suggests what to write instead of an unknown key, and the key
// it means when it names one (a renamed or misspelt key), else "".
func fieldHint(loc []string, key string, allowed []string) (hint, alt string) {
	if len(loc) == 0 {
		if h, ok := v2Hints[key]; ok {
			if a, ok := v2Spellings[key]; ok {
				return h, a
			}
			return h, ""
		}
	}
	if key == "onlyIfMissing" {
		return "the v3 form is overwrite: false", ""
	}
	if key == "protocol" {
		return "the v3 field is transport", ""
	}
	for _, a := range allowed {
		if strings.EqualFold(a, key) {
			return fmt.Sprintf("did you mean %q? field names are case-sensitive", a), a
		}
	}
	if best := suggest.Closest(key, allowed, 3); best != "" {
		return fmt.Sprintf("did you mean %q?", best), best
	}
	if len(allowed) > 0 && len(allowed) <= 12 {
		return "allowed fields: " + strings.Join(allowed, ", "), ""
	}
	return "", ""
}

// v2Spellings are the v2 keys whose v3 field is the same with another
// spelling.
var v2Spellings = map[string]string{"sourceURL": "sourceUrl", "iconURL": "iconUrl"}

// nameHint explains the grammar of map keys.
func nameHint(loc []string) string {
	if len(loc) > 0 && (loc[len(loc)-1] == "args" || loc[len(loc)-1] == "env") {
		return "names must match ^[A-Za-z_][A-Za-z0-9_]*$ (a letter or underscore, then letters, digits or underscores)"
	}
	return "see the schema for the allowed key names"
}

// patternHint explains a pattern the value failed, from the schema's own
// description of the field when it has one.
func patternHint(s *schemaSet, schemaURL, pattern string) string {
	if d := describeSchema(s, schemaURL); d != "" {
		return "expected " + d
	}
	return "it must match " + pattern
}

// describeSchema returns the description of the schema at loc or of the
// nearest enclosing schema that has one, stopping at a property boundary.
func describeSchema(s *schemaSet, loc string) string {
	for i := 0; i < 4 && loc != ""; i++ {
		if sch := s.lookup(loc); sch != nil {
			if sch.Description != "" {
				return firstSentence(sch.Description)
			}
		}
		base, frag, ok := strings.Cut(loc, "#")
		if !ok || frag == "" {
			return ""
		}
		toks := strings.Split(frag, "/")
		last := toks[len(toks)-1]
		if len(toks) >= 2 && toks[len(toks)-2] == "properties" {
			return ""
		}
		cut := 1
		if _, err := strconv.Atoi(last); err == nil {
			cut = 2 // anyOf/0, oneOf/1…
		}
		if len(toks) <= cut {
			return ""
		}
		loc = base + "#" + strings.Join(toks[:len(toks)-cut], "/")
	}
	return ""
}

func firstSentence(s string) string {
	const limit = 240
	if len(s) > limit {
		if i := strings.LastIndex(s[:limit], ". "); i > 40 {
			return s[:i+1]
		}
	}
	return s
}

// falseSchemaMsg explains a field that may not be present at all.
func falseSchemaMsg(root any, loc []string, what string) string {
	n := len(loc)
	if n > 0 && loc[n-1] == "config" {
		if t, ok := valueAt(root, append(append([]string{}, loc[:n-1]...), "type")).(string); ok {
			return fmt.Sprintf("%s takes no config; remove the config key (even config: {} or null is refused)", t)
		}
	}
	if n > 0 && loc[n-1] == "optional" {
		return fmt.Sprintf("%s: a group member must not state optional; put optional on the group", what)
	}
	return fmt.Sprintf("%s is not allowed here; remove it", what)
}

// notMsg explains a value a "not" forbids.
func notMsg(s *schemaSet, schemaURL, what string, v any) string {
	if str, ok := v.(string); ok && str == TypeSBX {
		return fmt.Sprintf("%s is workload-only: a mixin's image config never becomes the composed image's; remove it or make the kit a workload", TypeSBX)
	}
	shown := ""
	switch v.(type) {
	case map[string]any, []any:
	default:
		shown = " " + display(v)
	}
	if d := describeSchema(s, schemaURL); d != "" {
		return fmt.Sprintf("%s%s is not allowed here: %s", what, shown, d)
	}
	return fmt.Sprintf("%s%s is not allowed here", what, shown)
}
