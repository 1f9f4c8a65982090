package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moby/patternmatcher"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/suggest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ConfigFile is the name of the configuration file, looked up from a
// kit's directory upwards.
const ConfigFile = ".kitsmith.yaml"

// Config is lint configuration, usually read from .kitsmith.yaml:
//
//	disable: [port-trust-boundary]        # rule IDs, or "all"
//	enable: [unsized-volume]              # rule IDs, or "all"
//	severity:
//	  unsized-volume: warning             # error, warning or info
//	ignore:
//	  - "examples/**"                     # kit paths, relative to this file
//	egress:
//	  registries:                         # what egress-not-allowed infers
//	    npm: ["npm.example.org:443"]      # the host your npm reaches
//
// A rule named by its ID in enable or disable follows that list; "all"
// applies to the rules not named (spec/<code> findings are never turned
// off by "all", only by their own ID). Naming one ID in both lists is an
// error. A nil *Config enables every rule at its default severity.
type Config struct {
	// Enable lists rules to run; "all" enables every rule not disabled by
	// its ID.
	Enable []string `yaml:"enable"`
	// Disable lists rules not to run; "all" disables every rule not
	// enabled by its ID.
	Disable []string `yaml:"disable"`
	// Severity overrides the default severity of rules, by ID.
	Severity map[string]Severity `yaml:"severity"`
	// Ignore lists patterns of kit paths, relative to Dir, that are not
	// linted, in .dockerignore syntax (* within a path segment, ** across
	// segments, ! to re-include); a pattern matching a directory ignores
	// everything under it.
	Ignore []string `yaml:"ignore"`
	// Egress configures egress-not-allowed: the hosts package tools reach
	// by default. Zero: no default registry is inferred.
	Egress EgressConfig `yaml:"egress"`
	// Dir is the directory Ignore patterns are relative to: the
	// configuration file's directory.
	Dir string `yaml:"-"`
	// Path is the file the configuration was read from, if any.
	Path string `yaml:"-"`
	// at is where LoadConfig read each rule ID ("disable[0]",
	// "severity.ID"), for errors about them.
	at map[string]spec.Pos
}

// LoadConfig reads a configuration file. Unknown keys are errors; an
// invalid egress entry is a *spec.Error positioned in the file. A path that
// is not a regular file is refused without being opened (an error wrapping
// spec.ErrNotRegular), so a FIFO cannot block.
func LoadConfig(path string) (*Config, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("reading lint configuration: %w", &fs.PathError{Op: "read", Path: path, Err: spec.ErrNotRegular})
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading lint configuration: %w", err)
	}
	c := &Config{at: map[string]spec.Pos{}}
	inFile := func(es spec.Errors) error {
		for _, e := range es {
			e.Range.Start.File, e.Range.End.File = path, path
		}
		return es.Sort()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, inFile(spec.Errors{configSyntaxError(err)})
	}
	if errs := checkConfigDocument(&doc, c.at); len(errs) > 0 {
		return nil, inFile(errs)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		if se, ok := errors.AsType[*spec.Error](err); ok {
			return nil, inFile(spec.Errors{se})
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	c.Dir, c.Path = abs, path
	return c, nil
}

// FindConfig looks for .kitsmith.yaml in dir and its parents and returns
// its path, or "" when there is none.
func FindConfig(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, ConfigFile)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

// validate checks the rule IDs the configuration names. When LoadConfig
// read it, each error is a *spec.Error at the ID's line and column, and
// the result a spec.Errors.
func (c *Config) validate(reg *Registry) error {
	var errs []error
	positioned := c.Path != "" && c.at != nil
	add := func(key string, err error) {
		if err == nil {
			return
		}
		if p, ok := c.at[key]; ok && positioned {
			p.File = c.Path
			errs = append(errs, &spec.Error{Range: spec.Range{Start: p, End: p}, Code: "lint-config", Msg: err.Error(), Err: err})
			return
		}
		positioned = false
		errs = append(errs, err)
	}
	for i, id := range c.Enable {
		add(fmt.Sprintf("enable[%d]", i), checkRuleID(reg, "enable", id, true))
	}
	for i, id := range c.Disable {
		key := fmt.Sprintf("disable[%d]", i)
		add(key, checkRuleID(reg, "disable", id, true))
		if slices.Contains(c.Enable, id) {
			add(key, fmt.Errorf("%q is both in enable and in disable; keep it in one", id))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.Severity)) {
		add("severity."+id, checkRuleID(reg, "severity", id, false))
		if sev := c.Severity[id]; sev < SeverityInfo || sev > SeverityError {
			add("severity."+id, fmt.Errorf("severity of %s: use error, warning or info", id))
		}
	}
	if positioned && len(errs) > 0 {
		var es spec.Errors
		for _, e := range errs {
			es = append(es, e.(*spec.Error))
		}
		return es.Sort()
	}
	if _, err := patternmatcher.New(c.Ignore); err != nil {
		errs = append(errs, fmt.Errorf("ignore: %w", err))
	}
	if err := c.Egress.Registries.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkRuleID reports an ID that names no rule.
func checkRuleID(reg *Registry, what, id string, allowAll bool) error {
	if id == "all" && allowAll || IsSpecRule(id) && len(id) > len(SpecPrefix) || isMetaRule(id) {
		return nil
	}
	if _, ok := reg.Lookup(id); ok {
		return nil
	}
	return &UnknownRuleError{List: what, ID: id, Suggestion: suggestRule(reg, id)}
}

// checkSelection checks an enable and a disable list: known IDs, and no
// ID in both.
func checkSelection(reg *Registry, enable, disable []string, enableName, disableName string) error {
	var errs []error
	for _, id := range enable {
		if err := checkRuleID(reg, enableName, id, true); err != nil {
			errs = append(errs, err)
		}
	}
	for _, id := range disable {
		if err := checkRuleID(reg, disableName, id, true); err != nil {
			errs = append(errs, err)
		}
		for _, e := range enable {
			if e == id {
				errs = append(errs, &ConflictError{ID: id, Enable: enableName, Disable: disableName})
			}
		}
	}
	return errors.Join(errs...)
}

// ErrUnknownRule is wrapped by the errors about rule IDs that name no
// rule (an *UnknownRuleError). They suggest a close ID where there is
// one; a program lists the rules with DefaultRules and MetaRules.
var ErrUnknownRule = errors.New("unknown rule")

// The lists of rule IDs the options give, as UnknownRuleError and
// ConflictError name them (a configuration's are its keys: enable,
// disable, severity).
const (
	ListWithEnable  = "WithEnable"
	ListWithDisable = "WithDisable"
)

// UnknownRuleError reports a rule ID that names no rule, in the list List
// (ListWithEnable, or a configuration key). Suggestion is a close rule ID,
// or "". It is ErrUnknownRule (errors.Is).
type UnknownRuleError struct {
	// List names the list the ID is in.
	List string
	// ID is the unknown rule ID.
	ID string
	// Suggestion is a close rule ID, or "".
	Suggestion string
}

// Error names the list, the ID and the suggestion.
func (e *UnknownRuleError) Error() string {
	s := fmt.Sprintf("%s: %v %q", e.List, ErrUnknownRule, e.ID)
	if e.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return s
}

// Is reports whether target is ErrUnknownRule.
func (e *UnknownRuleError) Is(target error) bool { return target == ErrUnknownRule }

// ErrEnabledAndDisabled is what a *ConflictError is (errors.Is).
var ErrEnabledAndDisabled = errors.New("a rule is both enabled and disabled")

// ConflictError reports a rule ID named both in an enable and in a
// disable list: WithEnable and WithDisable, or a configuration's enable
// and disable. Enable and Disable name the two lists (ListWithEnable and
// ListWithDisable, or the configuration's keys).
type ConflictError struct {
	// ID is the rule ID in both lists.
	ID string
	// Enable and Disable name the two lists.
	Enable, Disable string
}

// Error names the ID and the two lists.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%q is both in %s and in %s; keep it in one", e.ID, e.Enable, e.Disable)
}

// Is reports whether target is ErrEnabledAndDisabled.
func (e *ConflictError) Is(target error) bool { return target == ErrEnabledAndDisabled }

func suggestRule(reg *Registry, id string) string {
	var ids []string
	for _, r := range append(reg.Rules(), MetaRules()...) {
		if strings.Contains(r.ID, id) || strings.Contains(id, r.ID) {
			return r.ID
		}
		ids = append(ids, r.ID)
	}
	return suggest.Closest(id, ids, 4)
}

// decide applies an enable and a disable list to rule id: an ID named
// explicitly wins over "all"; decided is false when neither list speaks
// of id.
func decide(enable, disable []string, id string) (on, decided bool) {
	has := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	switch {
	case has(enable, id):
		return true, true
	case has(disable, id):
		return false, true
	case IsSpecRule(id):
		return false, false
	case has(enable, "all"):
		return true, true
	case has(disable, "all"):
		return false, true
	}
	return false, false
}

// enabled reports whether rule id runs under the configuration alone.
func (c *Config) enabled(id string) bool {
	if c == nil {
		return true
	}
	if on, ok := decide(c.Enable, c.Disable, id); ok {
		return on
	}
	return true
}

// severity returns the configured severity of id, or def.
func (c *Config) severity(id string, def Severity) Severity {
	if c != nil {
		if s, ok := c.Severity[id]; ok {
			return s
		}
	}
	return def
}

// ignored reports whether the kit at path (a file or directory) is
// excluded by an ignore pattern.
func (c *Config) ignored(path string) bool {
	if c == nil || len(c.Ignore) == 0 {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	pm, err := patternmatcher.New(c.Ignore)
	if err != nil {
		return false // validate reported it
	}
	ignored, err := pm.MatchesOrParentMatches(rel)
	return err == nil && ignored
}
