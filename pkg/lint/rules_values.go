package lint

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// keyText returns the text of the key at field (its last component) and of
// its value, as written on one line of the source, and false when the key
// is not stated or its value spans lines.
func (in *Input) keyText(field string) (value string, r spec.Range, ok bool) {
	key := field[strings.LastIndexByte(field, '.')+1:]
	kr, vr := in.Kit.KeyPosOf(field), in.Kit.PosOf(field)
	src := in.source(kr.Start.File)
	if src == nil || kr.Start.Line != vr.Start.Line || vr.End.Line != vr.Start.Line {
		return "", spec.Range{}, false
	}
	lines := strings.SplitN(string(src), "\n", kr.Start.Line+1)
	if len(lines) < kr.Start.Line {
		return "", spec.Range{}, false
	}
	line := lines[kr.Start.Line-1]
	if kr.Start.Col < 1 || !strings.HasPrefix(line[kr.Start.Col-1:], key) || vr.End.Col-1 > len(line) || vr.Start.Col < 1 {
		return "", spec.Range{}, false
	}
	return line[vr.Start.Col-1 : vr.End.Col-1], vr, true
}

// yaml11Words are the YAML 1.1 spellings of booleans that YAML 1.2 reads
// as strings.
var yaml11Words = map[string]bool{"y": true, "yes": true, "on": true, "n": false, "no": false, "off": false}

var yaml11Boolean = &Rule{
	ID:       "yaml11-boolean",
	Severity: SeverityWarning,
	Summary:  "A boolean field is written as a YAML 1.1 word (yes, no, on, off) instead of true or false.",
	Rationale: "The reference decoder reads yes, no, on and off (quoted or not) as booleans in optional and required, " +
		"so the kit is valid; but YAML 1.2 reads them as strings, and so do JSON tools, editors with the kit schema " +
		"and any consumer that decodes the descriptor into a generic structure. The same kit then means different " +
		"things to different readers. In a group's optional the reference decoder refuses them (spec/groups.go checks " +
		"the YAML tag), so there they are a spec/wrong-type error instead.",
	Fix: "Write true or false.",
	Check: func(in *Input) []Finding {
		var fields []string
		for i, c := range in.Kit.Descriptor.Capabilities {
			if c.Group != nil {
				continue // the reference refuses them in a group: spec/wrong-type reports them
			}
			fields = append(fields, fmt.Sprintf("capabilities[%d].optional", i))
		}
		for _, name := range slices.Sorted(maps.Keys(in.Kit.Descriptor.Args)) {
			fields = append(fields, "args."+name+".required")
		}
		var out []Finding
		for _, f := range fields {
			text, r, ok := in.keyText(f)
			if !ok {
				continue
			}
			b, word := yaml11Words[strings.ToLower(strings.Trim(text, `"'`))]
			if !word {
				continue
			}
			fd := Finding{Range: r, Message: fmt.Sprintf("%s is written %s, a YAML 1.1 boolean that YAML 1.2 and JSON tools read as a string", f, text),
				Fix: fmt.Sprintf("write %s: %t", f[strings.LastIndexByte(f, '.')+1:], b)}
			if e, ok := in.rangeEdit(r, text, strconv.FormatBool(b)); ok {
				fd.Fixes = in.fix(fmt.Sprintf("write %t for %s", b, text), true, e)
			}
			out = append(out, fd)
		}
		return out
	},
}

// contentFormats are file extensions whose empty body is not a valid file
// of its kind, or does nothing.
var contentFormats = map[string]bool{".json": true, ".yaml": true, ".yml": true, ".toml": true, ".sh": true, ".bash": true,
	".py": true, ".js": true, ".mjs": true, ".ts": true, ".conf": true, ".ini": true, ".xml": true, ".md": true}

var lifecycleFileWithoutContent = &Rule{
	ID:       "lifecycle-file-without-content",
	Severity: SeverityWarning,
	Summary:  "A lifecycle file omits content where an empty file is surely a mistake: an executable, a script or a structured config.",
	Rationale: "The specification requires only a path, so a file without content is written empty at start. That is " +
		"right for a marker file, but an empty executable runs nothing, an empty script does nothing, and an empty " +
		"JSON, YAML or TOML config fails to parse (or is not valid at all) in the tool that reads it, at sandbox start. " +
		"Writing content: \"\" says the empty file is intended.",
	Fix: "Give the file its content (content: |), or write content: \"\" if an empty file is intended.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, f := range in.Files {
			if in.fileStatesContent(f) {
				continue
			}
			why := ""
			switch ext := strings.ToLower(path.Ext(f.Path)); {
			case executableMode(f.Mode):
				why = fmt.Sprintf("it is executable (mode %s), and an empty program runs nothing", f.Mode)
			case contentFormats[ext] || shellLikeFile(f.Path):
				why = fmt.Sprintf("an empty %s file does nothing or does not parse", strings.TrimPrefix(ext, "."))
				if ext == "" {
					why = "an empty shell file does nothing"
				}
			default:
				continue
			}
			out = append(out, in.at(f.Field+".path", "file %s has no content, so it is written empty; %s", f.Path, why))
		}
		return out
	},
}

// fileStatesContent reports whether a lifecycle file states content at
// all (content: "" included).
func (in *Input) fileStatesContent(f *LifecycleFile) bool {
	// PosOf falls back to the enclosing value when the key is absent.
	return f.Content != "" || in.Kit.PosOf(f.Field+".content") != in.Kit.PosOf(f.Field)
}

// executableMode reports an octal mode with an execute bit.
func executableMode(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m[max(0, len(m)-3):] {
		if c >= '0' && c <= '7' && (c-'0')&1 == 1 {
			return true
		}
	}
	return false
}
