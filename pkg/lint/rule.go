package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Severity ranks a finding.
type Severity int

// Severities, from least to most severe.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "none"
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return SeverityError, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "info", "note":
		return SeverityInfo, nil
	}
	return 0, fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// Rule is one lint check.
type Rule struct {
	// ID is the rule's stable kebab-case identifier. It is never reused
	// for another meaning.
	ID string
	// Severity is the default severity of the rule's findings.
	Severity Severity
	// Summary is one sentence, ending in a period, saying what the rule
	// catches.
	Summary string
	// Rationale explains why it matters: what fails, and how silently.
	Rationale string
	// Fix says what to write instead.
	Fix string
	// DocURL is the rule's documentation page. kitsmith's own rules leave
	// it empty: their page is DocsBase + ID + ".md". A rule from elsewhere
	// (WithRules) names its own, or has none.
	DocURL string
	// Check inspects one kit and returns what it finds. RuleID of the
	// returned findings is filled in by the runner, and Severity when the
	// finding leaves it zero (a rule may rank findings below or above its
	// default; configuration still overrides both).
	Check func(in *Input) []Finding
}

// DocsBase is where rule documentation pages live; a rule's page is
// DocsBase + ID + ".md".
const DocsBase = "https://github.com/kitsmith/kitsmith/blob/main/docs/rules/"

// HelpURI returns the URL of the rule's documentation page: DocURL when
// set, else HelpURI(ID).
func (r *Rule) HelpURI() string {
	if r.DocURL != "" {
		return r.DocURL
	}
	return HelpURI(r.ID)
}

// HelpURI returns the URL of kitsmith's documentation page of the rule
// id: DocsBase + id + ".md" for a rule of DefaultRules or MetaRules,
// DocsBase + "spec.md" for every spec/<code> rule, and "" for any other
// ID, which kitsmith does not document (a rule from elsewhere gives its
// own page as Rule.DocURL).
func HelpURI(id string) string {
	switch {
	case IsSpecRule(id):
		return DocsBase + "spec.md"
	case builtinIDs()[id]:
		return DocsBase + id + ".md"
	}
	return ""
}

// builtinIDs are the IDs of kitsmith's own rules, which have pages.
var builtinIDs = sync.OnceValue(func() map[string]bool {
	ids := map[string]bool{}
	for _, r := range append(DefaultRules(), append(MetaRules(), SpecRule(""))...) {
		ids[r.ID] = true
	}
	return ids
})

// SpecPrefix starts the IDs of findings that report specification errors:
// "spec/<code>", where <code> is the spec.Error Code.
const SpecPrefix = spec.RulePrefix

// IsSpecRule reports whether id is a spec/<code> ID.
func IsSpecRule(id string) bool { return strings.HasPrefix(id, SpecPrefix) }

// SpecRule describes the spec/<code> findings: specification errors and
// warnings, as kitsmith validate reports them. Its Check is nil; Run
// reports these findings itself. code may be "" for the family as a whole
// (ID "spec").
func SpecRule(code string) *Rule {
	id := "spec"
	if code != "" {
		id = SpecPrefix + code
	}
	return &Rule{
		ID:       id,
		Severity: SeverityError,
		Summary:  "The kit breaks the Docker Sandboxes kit specification v3.",
		Rationale: "A kit that breaks the specification is refused when it is built, published or loaded into a sandbox. " +
			"lint runs the same validation as kitsmith validate, so one command gates a commit. Specification " +
			"warnings (such as the descriptor size budget) are reported with severity warning.",
		Fix: "Follow the message: it names the field, the rule of the specification it breaks and what to write instead.",
	}
}

var ruleIDRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Registry is an immutable set of rules, sorted by ID.
type Registry struct {
	rules []*Rule
	byID  map[string]*Rule
}

// NewRegistry builds a registry. It refuses duplicate or malformed IDs,
// rules without a Summary sentence or a Check, and rules without a
// severity.
func NewRegistry(rules ...*Rule) (*Registry, error) {
	r := &Registry{byID: make(map[string]*Rule, len(rules))}
	for _, rule := range rules {
		switch {
		case !ruleIDRE.MatchString(rule.ID):
			return nil, fmt.Errorf("rule id %q is not kebab-case", rule.ID)
		case rule.ID == "spec" || rule.ID == "all":
			return nil, fmt.Errorf("rule id %q is reserved", rule.ID)
		case r.byID[rule.ID] != nil:
			return nil, fmt.Errorf("rule id %q is registered twice", rule.ID)
		case rule.Summary == "" || !strings.HasSuffix(rule.Summary, "."):
			return nil, fmt.Errorf("rule %s: Summary must be one sentence ending in a period", rule.ID)
		case rule.Check == nil:
			return nil, fmt.Errorf("rule %s has no Check", rule.ID)
		case rule.Severity < SeverityInfo || rule.Severity > SeverityError:
			return nil, fmt.Errorf("rule %s has no severity", rule.ID)
		}
		r.byID[rule.ID] = rule
		r.rules = append(r.rules, rule)
	}
	sort.Slice(r.rules, func(i, j int) bool { return r.rules[i].ID < r.rules[j].ID })
	return r, nil
}

// Rules returns the registered rules, sorted by ID.
func (r *Registry) Rules() []*Rule { return append([]*Rule(nil), r.rules...) }

// Lookup returns the rule with the given ID.
func (r *Registry) Lookup(id string) (*Rule, bool) {
	rule, ok := r.byID[id]
	return rule, ok
}

// Finding is one problem found in a kit.
type Finding struct {
	// RuleID is the rule that found it: a registered rule's ID, a meta
	// rule's ID, or "spec/<code>" for a specification error.
	RuleID string
	// Severity is the effective severity, after configuration.
	Severity Severity
	// Range is where the offending value is. End is zero when only the
	// start is known.
	Range spec.Range
	// Message says what is wrong.
	Message string
	// Fix says what to change; empty when the message already does.
	Fix string
	// Fixes are machine-applicable changes that resolve the finding, the
	// preferred one first; nil when the change needs a judgement.
	Fixes []Fix
	// Kit is the display path of the kit's descriptor.
	Kit string
	// Justification is the reason of the kitsmith:ignore comment that
	// silenced the finding (Result.Suppressed); empty for one that stands.
	Justification string
}
