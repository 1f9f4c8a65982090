package lint

import (
	"context"
	"fmt"
	"sort"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Meta rules are findings the runner itself reports about suppression
// comments.
var (
	// UnusedSuppression reports a kitsmith:ignore comment that silenced
	// nothing.
	UnusedSuppression = &Rule{
		ID: "unused-suppression", Severity: SeverityWarning,
		Summary:   "A kitsmith:ignore comment silences no finding.",
		Rationale: "A stale suppression hides the next real finding on its line; remove it when the problem it silenced is gone.",
		Fix:       "Remove the comment, or correct the rule ID it names.",
	}
	// MalformedSuppression reports a kitsmith:ignore comment without a
	// rule ID or without a reason.
	MalformedSuppression = &Rule{
		ID: "malformed-suppression", Severity: SeverityError,
		Summary:   "A kitsmith:ignore comment names no rule or gives no reason.",
		Rationale: "Suppressions are reviewed like code: the reason tells the next reader why the finding does not apply.",
		Fix:       "Write # kitsmith:ignore <rule-id>[,<rule-id>] <reason>.",
	}
)

// MetaRules returns the rules the runner reports itself.
func MetaRules() []*Rule { return []*Rule{MalformedSuppression, UnusedSuppression} }

func isMetaRule(id string) bool { return id == UnusedSuppression.ID || id == MalformedSuppression.ID }

// Option configures Run.
type Option func(*options) error

type options struct {
	reg    *Registry
	config *Config
}

// WithRules runs the rules of reg instead of DefaultRules.
func WithRules(reg *Registry) Option {
	return func(o *options) error {
		if reg == nil {
			return fmt.Errorf("lint: nil registry")
		}
		o.reg = reg
		return nil
	}
}

// WithConfig applies a configuration: enabled rules, severities, ignored
// paths. Unknown rule IDs are an error.
func WithConfig(c *Config) Option {
	return func(o *options) error {
		o.config = c
		return nil
	}
}

func makeOptions(opts []Option) (*options, error) {
	o := &options{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	if o.reg == nil {
		reg, err := NewRegistry(DefaultRules()...)
		if err != nil {
			return nil, err
		}
		o.reg = reg
	}
	if o.config != nil {
		if err := o.config.validate(o.reg); err != nil {
			return nil, fmt.Errorf("lint configuration %s: %w", o.config.Path, err)
		}
	}
	return o, nil
}

// Result is the outcome of Run.
type Result struct {
	// Findings are sorted by file, line, column and rule.
	Findings []*Finding
	// Kits are the display paths of the kits linted.
	Kits []string
	// Rules are the rules that ran, plus the meta rules, for reports
	// that describe them (SARIF).
	Rules []*Rule
}

// Count returns the number of findings of severity sev.
func (r *Result) Count(sev Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// Fails reports whether a finding is at or above level.
func (r *Result) Fails(level Severity) bool {
	for _, f := range r.Findings {
		if f.Severity >= level {
			return true
		}
	}
	return false
}

// Run lints kits: specification validation (reported as spec/<code>
// findings) and every enabled rule, then configuration and inline
// suppressions. Kits under an ignored path are skipped.
func Run(ctx context.Context, kits []*spec.Kit, opts ...Option) (*Result, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, r := range o.reg.Rules() {
		if o.config.enabled(r.ID) {
			res.Rules = append(res.Rules, r)
		}
	}
	res.Rules = append(res.Rules, MetaRules()...)
	for _, k := range kits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.config.ignored(k.Path) {
			continue
		}
		res.Kits = append(res.Kits, k.Path)
		res.Findings = append(res.Findings, lintKit(k, o, res.Rules)...)
	}
	sortFindings(res.Findings)
	return res, nil
}

func lintKit(k *spec.Kit, o *options, rules []*Rule) []*Finding {
	var raw []*Finding
	rep := k.Validate()
	for _, list := range []struct {
		errs spec.Errors
		sev  Severity
	}{{rep.Errors, SeverityError}, {rep.Warnings, SeverityWarning}} {
		for _, e := range list.errs {
			raw = append(raw, &Finding{RuleID: "spec/" + e.Code, Severity: list.sev, Range: e.Range, Message: e.Msg})
		}
	}
	if k.Descriptor != nil {
		in := NewInput(k)
		for _, r := range rules {
			if r.Check == nil {
				continue
			}
			for _, f := range r.Check(in) {
				f := f
				f.RuleID, f.Severity = r.ID, r.Severity
				if f.Fix == "" {
					f.Fix = r.Fix
				}
				raw = append(raw, &f)
			}
		}
	}
	sups := suppressions(k)
	var out []*Finding
	for _, f := range raw {
		if !o.config.enabled(f.RuleID) {
			continue
		}
		f.Severity = o.config.severity(f.RuleID, f.Severity)
		f.Kit = k.Path
		silenced := false
		for _, s := range sups {
			if s.reason != "" && s.covers(f.RuleID, f.Range.Start) {
				s.used[f.RuleID] = true
				silenced = true
			}
		}
		if !silenced {
			out = append(out, f)
		}
	}
	for _, s := range sups {
		out = append(out, suppressionFindings(s, k, o)...)
	}
	return out
}

func suppressionFindings(s *suppression, k *spec.Kit, o *options) []*Finding {
	rng := spec.Range{Start: s.pos}
	if len(s.rules) == 0 || s.reason == "" {
		if !o.config.enabled(MalformedSuppression.ID) {
			return nil
		}
		msg := "kitsmith:ignore needs a rule ID and a reason: # kitsmith:ignore <rule-id> <why it does not apply>"
		return []*Finding{{RuleID: MalformedSuppression.ID, Severity: o.config.severity(MalformedSuppression.ID, MalformedSuppression.Severity),
			Range: rng, Message: msg, Fix: MalformedSuppression.Fix, Kit: k.Path}}
	}
	if !o.config.enabled(UnusedSuppression.ID) {
		return nil
	}
	var out []*Finding
	for _, id := range s.rules {
		if s.used[id] || !o.config.enabled(id) {
			continue
		}
		msg := fmt.Sprintf("kitsmith:ignore %s silences nothing on this line or the next", id)
		if _, known := o.reg.Lookup(id); !known && !isMetaRule(id) && len(id) > 5 && id[:5] != "spec/" {
			msg = fmt.Sprintf("kitsmith:ignore names unknown rule %q%s", id, suggestRule(o.reg, id))
		}
		out = append(out, &Finding{RuleID: UnusedSuppression.ID, Severity: o.config.severity(UnusedSuppression.ID, UnusedSuppression.Severity),
			Range: rng, Message: msg, Fix: UnusedSuppression.Fix, Kit: k.Path})
	}
	return out
}

func sortFindings(fs []*Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Range.Start, fs[j].Range.Start
		if a != b {
			return a.Before(b)
		}
		if fs[i].RuleID != fs[j].RuleID {
			return fs[i].RuleID < fs[j].RuleID
		}
		return fs[i].Message < fs[j].Message
	})
}
