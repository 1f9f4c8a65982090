package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/suggest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// configKeys are the keys of .kitsmith.yaml, with the shape each takes as
// its errors describe it.
var configKeys = map[string]string{
	"enable":   "a list of rule IDs, or all, as in enable: [unsized-volume]",
	"disable":  "a list of rule IDs, or all, as in disable: [port-trust-boundary]",
	"severity": "a mapping of rule IDs to error, warning or info, as in severity: {unsized-volume: warning}",
	"ignore":   `a list of kit path patterns, as in ignore: ["examples/**"]`,
	"egress":   `a mapping with registries, as in egress: {registries: {pypi: ["pypi.example.org"]}}`,
}

// egressKeys are the keys of the egress: section.
var egressKeys = map[string]string{
	"registries": `a mapping of tool families to lists of hosts, as in registries: {pypi: ["pypi.example.org"]}`,
}

// configYAMLLine reads the line of a yaml.v3 error.
var configYAMLLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// configError is a configuration problem at a YAML node; LoadConfig adds
// the file name.
func configError(n *yaml.Node, format string, args ...any) *spec.Error {
	p := spec.Pos{Line: n.Line, Col: n.Column}
	return &spec.Error{Range: spec.Range{Start: p, End: p}, Code: "lint-config", Msg: fmt.Sprintf(format, args...)}
}

// checkConfigDocument checks the shape of a parsed .kitsmith.yaml: its
// keys, with the allowed ones and a did-you-mean for an unknown one, and
// the type of each value, with the expected shape. It records where each
// rule ID is written in at ("disable[0]" → position), so that an unknown
// rule is reported at its line.
func checkConfigDocument(doc *yaml.Node, at map[string]spec.Pos) spec.Errors {
	root := doc
	if root.Kind == 0 {
		return nil // an empty file, or only comments
	}
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil // an empty file
	}
	if root.Kind != yaml.MappingNode {
		return spec.Errors{configError(root, "the configuration must be a mapping of %s", keyList(configKeys))}
	}
	var errs spec.Errors
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		shape, ok := configKeys[k.Value]
		if !ok {
			errs = append(errs, configError(k, "unknown key %q%s; the keys are %s", k.Value, didYouMean(k.Value, configKeys), keyList(configKeys)))
			continue
		}
		switch k.Value {
		case "enable", "disable", "ignore":
			errs = append(errs, checkStringList(k.Value, v, shape, at)...)
		case "severity":
			errs = append(errs, checkSeverities(v, shape, at)...)
		case "egress":
			errs = append(errs, checkEgress(v, shape)...)
		}
	}
	return errs
}

// checkStringList checks a list of strings; a single string gets the list
// form to write.
func checkStringList(key string, v *yaml.Node, shape string, at map[string]spec.Pos) spec.Errors {
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		return nil
	case v.Kind == yaml.ScalarNode:
		return spec.Errors{configError(v, "%s must be %s, not a single value; write %s: [%s]", key, shape, key, v.Value)}
	case v.Kind != yaml.SequenceNode:
		return spec.Errors{configError(v, "%s must be %s", key, shape)}
	}
	var errs spec.Errors
	for j, item := range v.Content {
		if item.Kind != yaml.ScalarNode || item.ShortTag() != "!!str" {
			errs = append(errs, configError(item, "%s[%d] must be a string; %s is %s", key, j, key, shape))
			continue
		}
		at[fmt.Sprintf("%s[%d]", key, j)] = spec.Pos{Line: item.Line, Col: item.Column}
	}
	return errs
}

// checkSeverities checks the severity: mapping.
func checkSeverities(v *yaml.Node, shape string, at map[string]spec.Pos) spec.Errors {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return spec.Errors{configError(v, "severity must be %s", shape)}
	}
	var errs spec.Errors
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, s := v.Content[i], v.Content[i+1]
		at["severity."+k.Value] = spec.Pos{Line: k.Line, Col: k.Column}
		if s.Kind != yaml.ScalarNode {
			errs = append(errs, configError(s, "severity.%s must be error, warning or info", k.Value))
			continue
		}
		if _, err := ParseSeverity(s.Value); err != nil {
			hint := ""
			if best := suggest.Closest(strings.ToLower(s.Value), []string{"error", "warning", "info"}, 3); best != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", best)
			}
			errs = append(errs, configError(s, "severity.%s is %q; use error, warning or info%s", k.Value, s.Value, hint))
		}
	}
	return errs
}

// checkEgress checks the egress: section's keys; RegistryHosts checks the
// registries themselves.
func checkEgress(v *yaml.Node, shape string) spec.Errors {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return spec.Errors{configError(v, "egress must be %s", shape)}
	}
	var errs spec.Errors
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i]
		if _, ok := egressKeys[k.Value]; !ok {
			errs = append(errs, configError(k, "unknown key %q in egress%s; the keys are %s", k.Value, didYouMean(k.Value, egressKeys), keyList(egressKeys)))
		}
	}
	return errs
}

func keyList(keys map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(keys)), ", ")
}

func didYouMean(key string, keys map[string]string) string {
	if best := suggest.Closest(key, slices.Sorted(maps.Keys(keys)), 4); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}

// configSyntaxError positions a YAML syntax error of the configuration.
func configSyntaxError(err error) *spec.Error {
	msg, line := err.Error(), 1
	if m := configYAMLLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if strings.Contains(msg, "found character that cannot start any token") || strings.Contains(msg, "tab character") {
		msg = "tabs cannot indent YAML; use spaces"
	}
	p := spec.Pos{Line: line, Col: 1}
	return &spec.Error{Range: spec.Range{Start: p, End: p}, Code: "lint-config", Msg: "invalid YAML: " + msg}
}
