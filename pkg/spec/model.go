package spec

// descriptorFrom fills a Descriptor from the JSON data model of a decoded
// document (map[string]any, []any, string, json.Number, bool, nil),
// leaving fields of the wrong type zero: the schema reports them.
func descriptorFrom(v any) *Descriptor {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	d := &Descriptor{
		SchemaVersion: str(m["schemaVersion"]),
		DisplayName:   str(m["displayName"]),
		Author:        str(m["author"]),
		Description:   str(m["description"]),
		SourceURL:     str(m["sourceUrl"]),
		IconURL:       str(m["iconUrl"]),
		Version:       str(m["version"]),
		Licenses:      strs(m["licenses"]),
		Kind:          str(m["kind"]),
		Provides:      strs(m["provides"]),
		Requires:      strs(m["requires"]),
		Integrates:    strs(m["integrates"]),
		Conflicts:     strs(m["conflicts"]),
		Capabilities:  capabilitiesFrom(m["capabilities"]),
		Build:         str(m["build"]),
		Dockerfile:    str(m["dockerfile"]),
	}
	if args, ok := m["args"].(map[string]any); ok {
		d.Args = make(map[string]Arg, len(args))
		for name, a := range args {
			d.Args[name] = argFrom(a)
		}
	}
	if kits, ok := m["kits"].([]any); ok {
		d.Kits = make([]KitRef, 0, len(kits))
		for _, k := range kits {
			km, _ := k.(map[string]any)
			ref := KitRef{Ref: str(km["ref"]), Digest: str(km["digest"])}
			if args, ok := km["args"].(map[string]any); ok {
				ref.Args = make(map[string]string, len(args))
				for n, a := range args {
					if s, ok := a.(string); ok {
						ref.Args[n] = s
					}
				}
			}
			d.Kits = append(d.Kits, ref)
		}
	}
	return d
}

func argFrom(v any) Arg {
	m, _ := v.(map[string]any)
	a := Arg{
		Description: str(m["description"]),
		Required:    m["required"] == true,
		Enum:        strs(m["enum"]),
		Pattern:     str(m["pattern"]),
		Env:         str(m["env"]),
		BuildArg:    str(m["buildArg"]),
	}
	if s, ok := m["default"].(string); ok {
		a.Default = &s
	}
	return a
}

func capabilitiesFrom(v any) []Capability {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]Capability, 0, len(list))
	for _, x := range list {
		out = append(out, capabilityFrom(x))
	}
	return out
}

func capabilityFrom(v any) Capability {
	m, _ := v.(map[string]any)
	c := Capability{
		Type:        str(m["type"]),
		Name:        str(m["name"]),
		Optional:    m["optional"] == true,
		Description: str(m["description"]),
	}
	c.Config, _ = m["config"].(map[string]any)
	_, c.HasConfig = m["config"]
	if s, ok := m["source"].(map[string]any); ok {
		c.Source = &Source{Kit: str(s["kit"]), Path: str(s["path"])}
	}
	if g, ok := m["group"].(map[string]any); ok {
		c.Group = &Group{
			Name:         str(g["name"]),
			Description:  str(g["description"]),
			Optional:     g["optional"] == true,
			Capabilities: capabilitiesFrom(g["capabilities"]),
		}
	}
	return c
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// strs returns a list of strings, or nil when v is not a list of them.
func strs(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}
