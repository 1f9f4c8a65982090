package spec

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

const acpRef = "acp@1/config-valid"

// checkACP applies the acp@1 rules to a literal entry: the authored rules,
// then the values.
func (v *validator) checkACP(_ *block, _ int, e blockEntry) {
	v.checkACPAuthored(e)
	var a ACP
	if !v.decodeEntry(e, &a) {
		return
	}
	cf := field(e.f, "config")
	if err := CheckName(a.Agent); err != nil {
		v.errorf(field(cf, "agent"), "acp", acpRef, "agent must be an unversioned provides name, as the agent's kit lists it: %v", err)
	}
	if a.ProtocolVersion != nil && *a.ProtocolVersion < 1 {
		v.errorf(field(cf, "protocolVersion"), "acp", acpRef, "protocolVersion must be 1 or more (omit it for 1)")
	}
	if a.Command.IsShell && strings.ContainsRune(a.Command.Shell, 0) {
		v.errorf(field(cf, "command"), "acp", acpRef, "command contains a NUL character; remove it")
	}
	for k, arg := range a.Command.Argv {
		if strings.ContainsRune(arg, 0) {
			v.errorf(field(cf, "command", k), "acp", acpRef, "command contains a NUL character; remove it")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a.Env)) {
		if strings.ContainsRune(a.Env[name], 0) {
			v.errorf(field(cf, "env", name), "acp", acpRef, "env value for %q contains a NUL character; remove it", name)
		}
	}
}

// checkACPAuthored applies the acp@1 rules that hold before expansion:
// agent and command are stated, nothing is null, the command names a
// program, env names are variable names. An entry that is not optional draws a warning
// (acp@1/optional-for-compatibility); a group member inherits optional
// from its group, which must not be stated on the member, so the warning
// then points at the group.
func (v *validator) checkACPAuthored(e blockEntry) {
	cfg, cf := e.c.Config, field(e.f, "config")
	switch {
	case e.group != nil && !e.group.Optional:
		v.warnf(e.groupF, "acp-optional", "acp@1/optional-for-compatibility",
			"the group holding an acp@1 entry should be optional, so hosts without ACP still accept the kit; set optional: true on its group (members inherit it and must not state it)")
	case e.group == nil && !e.c.Optional:
		v.warnf(e.f, "acp-optional", "acp@1/optional-for-compatibility", "an acp@1 entry should be optional: true, so hosts without ACP still accept the kit")
	}
	for _, k := range []string{"agent", "command"} {
		if !stated(e, k) {
			v.errorf(field(cf, k), "acp", acpRef, "acp@1 needs %s: %s", k, acpNeeds[k])
		}
	}
	for _, k := range []string{"agent", "command", "env", "protocolVersion"} {
		if val, ok := cfg[k]; ok && nullOrHoldsNull(val) {
			v.errorf(field(cf, k), "acp", acpRef, "%s must not be null or contain null; write a value or remove it", k)
		}
	}
	if cmd, ok := cfg["command"]; ok && cmd != nil && !namesCommand(cmd) {
		v.errorf(field(cf, "command"), "acp", acpRef, "command must name a command: a non-blank string run with sh -c, or an argv list whose first element is the program")
	}
	if env, ok := cfg["env"].(map[string]any); ok {
		names := make([]string, 0, len(env))
		for name := range env {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if !identRE.MatchString(name) {
				v.errorf(field(cf, "env", name), "acp", acpRef, "invalid environment variable name %q in env; use letters, digits and underscores, not starting with a digit", name)
			}
			if env[name] == nil {
				v.errorf(field(cf, "env", name), "acp", acpRef, "env value for %q is null; write a string (\"\" for empty)", name)
			}
		}
	}
}

var acpNeeds = map[string]string{
	"agent":   "the unversioned provides name of the agent the adapter drives, as in claude",
	"command": "the command that speaks ACP on stdio, a shell string or an argv list",
}

// nullOrHoldsNull reports a null value or a list holding a null.
func nullOrHoldsNull(v any) bool {
	if v == nil {
		return true
	}
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if x == nil {
				return true
			}
		}
	}
	return false
}

// namesCommand reports whether a command value (string or argv list)
// names a program.
func namesCommand(v any) bool {
	switch c := v.(type) {
	case string:
		return strings.TrimSpace(c) != ""
	case []any:
		if len(c) == 0 {
			return false
		}
		first, ok := c[0].(string)
		return !ok || strings.TrimSpace(first) != ""
	}
	return true // the schema reports other types
}
