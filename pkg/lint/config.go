package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// ConfigFile is the name of the configuration file, looked up from a
// kit's directory upwards.
const ConfigFile = ".kitsmith.yaml"

// Config is lint configuration, usually read from .kitsmith.yaml:
//
//	disable: [port-trust-boundary]        # rule IDs, or "all"
//	enable: [unsized-volume]              # re-enables, wins over disable
//	severity:
//	  unsized-volume: warning             # error, warning or info
//	ignore:
//	  - "examples/**"                     # kit paths, relative to this file
type Config struct {
	Enable   []string            `yaml:"enable"`
	Disable  []string            `yaml:"disable"`
	Severity map[string]Severity `yaml:"severity"`
	Ignore   []string            `yaml:"ignore"`
	// Dir is the directory Ignore patterns are relative to: the
	// configuration file's directory.
	Dir string `yaml:"-"`
	// Path is the file the configuration was read from, if any.
	Path string `yaml:"-"`
}

// LoadConfig reads a configuration file. Unknown keys are errors.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading lint configuration: %w", err)
	}
	c := &Config{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
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

// validate checks the rule IDs the configuration names.
func (c *Config) validate(reg *Registry) error {
	var errs []error
	check := func(what, id string) {
		if id == "all" && what == "disable" || strings.HasPrefix(id, "spec/") {
			return
		}
		if _, ok := reg.Lookup(id); !ok && !isMetaRule(id) {
			errs = append(errs, fmt.Errorf("%s: unknown rule %q%s", what, id, suggestRule(reg, id)))
		}
	}
	for _, id := range c.Enable {
		check("enable", id)
	}
	for _, id := range c.Disable {
		check("disable", id)
	}
	for id, sev := range c.Severity {
		check("severity", id)
		if sev < SeverityInfo || sev > SeverityError {
			errs = append(errs, fmt.Errorf("severity of %s: use error, warning or info", id))
		}
	}
	for _, p := range c.Ignore {
		if _, err := globRE(p); err != nil {
			errs = append(errs, fmt.Errorf("ignore pattern %q: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

func suggestRule(reg *Registry, id string) string {
	for _, r := range reg.Rules() {
		if strings.Contains(r.ID, id) || strings.Contains(id, r.ID) {
			return fmt.Sprintf(" (did you mean %q? see kitsmith lint --list-rules)", r.ID)
		}
	}
	return " (see kitsmith lint --list-rules)"
}

// enabled reports whether rule id runs.
func (c *Config) enabled(id string) bool {
	if c == nil {
		return true
	}
	for _, e := range c.Enable {
		if e == id {
			return true
		}
	}
	for _, d := range c.Disable {
		if d == id || d == "all" && !strings.HasPrefix(id, "spec/") {
			return false
		}
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
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, p := range c.Ignore {
		if re, err := globRE(p); err == nil && (re.MatchString(rel) || re.MatchString(filepath.ToSlash(filepath.Dir(rel)))) {
			return true
		}
	}
	return false
}

// globRE compiles a path glob: * matches within a segment, ** across
// segments, ? one character.
func globRE(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				b.WriteString(".*")
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
					b.WriteString("/?")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("(/.*)?$")
	return regexp.Compile(b.String())
}
