package lint

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

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
	reg        *Registry
	config     *Config
	kitConfig  bool
	enable     []string
	disable    []string
	registries RegistryHosts
	// inferred are the hosts egress-not-allowed infers, by tool family:
	// the configuration's, then the WithRegistryHosts ones over them.
	inferred map[string][]registryContact
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
// paths. Unknown rule IDs are an error (ErrUnknownRule). A nil config is
// the default configuration.
func WithConfig(c *Config) Option {
	return func(o *options) error {
		o.config = c
		return nil
	}
}

// WithEnable enables rules by ID ("all" for every rule), over what the
// configuration says. It may be given several times.
func WithEnable(ids ...string) Option {
	return func(o *options) error {
		o.enable = append(o.enable, ids...)
		return nil
	}
}

// WithDisable disables rules by ID ("all" for every rule), over what the
// configuration says. Naming a rule in both WithEnable and WithDisable is
// an error (a *ConflictError).
func WithDisable(ids ...string) Option {
	return func(o *options) error {
		o.disable = append(o.disable, ids...)
		return nil
	}
}

// WithRegistryHosts sets the hosts package tools reach by default, by tool
// family (see RegistryHosts), over the configuration's egress.registries:
// a family named here replaces the configuration's list for it. Unknown
// families (ErrUnknownFamily) and malformed hosts are errors. It may be
// given several times; a later family list replaces an earlier one.
func WithRegistryHosts(r RegistryHosts) Option {
	return func(o *options) error {
		if err := r.validate(); err != nil {
			return fmt.Errorf("lint: %w", err)
		}
		if o.registries == nil {
			o.registries = RegistryHosts{}
		}
		for family, hosts := range r {
			o.registries[family] = slices.Clone(hosts)
		}
		return nil
	}
}

// defaultRegistry holds DefaultRules; a Registry is immutable, so one is
// shared by every Run.
var defaultRegistry = sync.OnceValues(func() (*Registry, error) { return NewRegistry(DefaultRules()...) })

func makeOptions(opts []Option) (*options, error) {
	o := &options{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	if o.kitConfig && o.config != nil {
		return nil, ErrConfigConflict
	}
	return o, o.resolve()
}

// resolve fills in the defaults and checks the options against each other
// and the configuration.
func (o *options) resolve() error {
	if o.reg == nil {
		reg, err := defaultRegistry()
		if err != nil {
			return err
		}
		o.reg = reg
	}
	if o.config != nil {
		if err := o.config.validate(o.reg); err != nil {
			if _, ok := err.(spec.Errors); ok {
				return err // each names the file, line and column
			}
			where := "lint configuration"
			if o.config.Path != "" {
				where += " " + o.config.Path
			}
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	if err := checkSelection(o.reg, o.enable, o.disable, ListWithEnable, ListWithDisable); err != nil {
		return err
	}
	var configured RegistryHosts
	if o.config != nil {
		configured = o.config.Egress.Registries
	}
	o.inferred = resolveRegistries(configured, o.registries)
	return nil
}

// enabled reports whether rule id runs: the explicit selection first, then
// the configuration.
func (o *options) enabled(id string) bool {
	if on, ok := decide(o.enable, o.disable, id); ok {
		return on
	}
	return o.config.enabled(id)
}

// Result is the outcome of Run.
type Result struct {
	// Findings are sorted by file, line, column and rule.
	Findings []*Finding
	// Kits are the display paths of the kits linted, in the order given.
	Kits []string
	// Rules are the rules that ran, meta rules included, sorted by ID,
	// for reports that describe them (SARIF). spec/<code> rules are not
	// listed; SpecRule describes them.
	Rules []*Rule
	// Suppressed are the findings an inline kitsmith:ignore comment
	// silenced, sorted like Findings, each with its Justification. Reports
	// that can mark a finding suppressed (SARIF) list them; Count and Fails
	// ignore them. Findings of disabled rules are not here: they never ran.
	Suppressed []*Finding
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

// Merge combines results of several runs (kits linted under different
// configurations) into one: kits in order, findings sorted, and the union
// of the rules. Nil results are skipped.
func Merge(results ...*Result) *Result {
	out := &Result{}
	seen := map[string]bool{}
	for _, r := range results {
		if r == nil {
			continue
		}
		out.Kits = append(out.Kits, r.Kits...)
		out.Findings = append(out.Findings, r.Findings...)
		out.Suppressed = append(out.Suppressed, r.Suppressed...)
		for _, rule := range r.Rules {
			if !seen[rule.ID] {
				seen[rule.ID] = true
				out.Rules = append(out.Rules, rule)
			}
		}
	}
	sortFindings(out.Findings)
	sortFindings(out.Suppressed)
	sort.Slice(out.Rules, func(i, j int) bool { return out.Rules[i].ID < out.Rules[j].ID })
	return out
}

// Run lints kits: specification validation (reported as spec/<code>
// findings) and every enabled rule, then configuration and inline
// suppressions. Kits under an ignored path are skipped. It fails only on
// invalid options (an unknown rule ID, a contradiction) or a cancelled
// ctx; problems in the kits are findings.
func Run(ctx context.Context, kits []*spec.Kit, opts ...Option) (*Result, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.kitConfig {
		return runKitConfigs(ctx, kits, o)
	}
	return run(ctx, kits, o)
}

// run lints kits under the resolved options o.
func run(ctx context.Context, kits []*spec.Kit, o *options) (*Result, error) {
	res := &Result{}
	for _, r := range append(o.reg.Rules(), MetaRules()...) {
		if o.enabled(r.ID) {
			res.Rules = append(res.Rules, r)
		}
	}
	sort.Slice(res.Rules, func(i, j int) bool { return res.Rules[i].ID < res.Rules[j].ID })
	for _, k := range kits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.config.ignored(k.Path) {
			continue
		}
		res.Kits = append(res.Kits, k.Path)
		found, suppressed := lintKit(k, o, res.Rules)
		res.Findings = append(res.Findings, found...)
		res.Suppressed = append(res.Suppressed, suppressed...)
	}
	sortFindings(res.Findings)
	sortFindings(res.Suppressed)
	return res, nil
}

// lintKit validates k, runs the rules and applies configuration and
// suppressions: it returns the findings that stand and those a suppression
// silenced.
func lintKit(k *spec.Kit, o *options, rules []*Rule) (found, suppressed []*Finding) {
	var in *Input
	if k.Descriptor != nil {
		in = NewInput(k)
	} else {
		in = &Input{Kit: k, sources: k.SourceFiles(), cached: map[string]bool{}}
	}
	raw := specFindings(k, in)
	if k.Descriptor != nil {
		in.registries = o.inferred
		for _, r := range rules {
			if r.Check == nil {
				continue
			}
			for _, f := range r.Check(in) {
				f.RuleID = r.ID
				if f.Severity == 0 { // a rule may rank its findings itself
					f.Severity = r.Severity
				}
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
		if !o.enabled(f.RuleID) {
			continue
		}
		f.Severity = o.config.severity(f.RuleID, f.Severity)
		f.Kit = k.Path
		silenced := false
		for _, s := range sups {
			if s.valid() && s.covers(f.RuleID, f.Range.Start) {
				s.used[f.RuleID] = true
				if !silenced {
					f.Justification = s.reason
				}
				silenced = true
			}
		}
		if silenced {
			suppressed = append(suppressed, f)
		} else {
			out = append(out, f)
		}
	}
	for _, s := range sups {
		out = append(out, suppressionFindings(s, k, o)...)
	}
	return out, suppressed
}

// specFindings reports the kit's specification errors and warnings, with
// the fixes they propose.
func specFindings(k *spec.Kit, in *Input) []*Finding {
	var out []*Finding
	rep := k.Validate(spec.WithRecipeCheck(CheckRecipe))
	for _, list := range []struct {
		errs spec.Errors
		sev  Severity
	}{{rep.Errors, SeverityError}, {rep.Warnings, SeverityWarning}} {
		for _, e := range list.errs {
			r := e.Range
			if r.Start.File == "" {
				r.Start.File = k.Path
			}
			out = append(out, &Finding{RuleID: SpecPrefix + e.Code, Severity: list.sev, Range: r, Message: e.Msg, Fixes: in.specFix(e)})
		}
	}
	return out
}

// suppressionFindings reports a malformed suppression, or the rules a
// suppression names that it did not silence.
func suppressionFindings(s *suppression, k *spec.Kit, o *options) []*Finding {
	rng := rangeWidth(s.pos, s.width)
	if problem := s.problem(); problem != "" {
		if !o.enabled(MalformedSuppression.ID) {
			return nil
		}
		return []*Finding{{RuleID: MalformedSuppression.ID, Severity: o.config.severity(MalformedSuppression.ID, MalformedSuppression.Severity),
			Range: rng, Message: problem + "; a suppression is written # kitsmith:ignore <rule-id>[,<rule-id>] <why it does not apply>",
			Fix: MalformedSuppression.Fix, Kit: k.Path}}
	}
	if !o.enabled(UnusedSuppression.ID) {
		return nil
	}
	var out []*Finding
	for _, id := range s.rules {
		if s.used[id] || !o.enabled(id) {
			continue
		}
		msg := fmt.Sprintf("kitsmith:ignore %s silences nothing on this line or the next; a stale suppression would hide the next real finding here", id)
		if _, known := o.reg.Lookup(id); !known && !isMetaRule(id) && !IsSpecRule(id) {
			see := " (no registered rule has that ID)"
			if s := suggestRule(o.reg, id); s != "" {
				see = fmt.Sprintf(" (did you mean %q?)", s)
			}
			msg = fmt.Sprintf("kitsmith:ignore names %s %q, so it silences nothing%s", ErrUnknownRule, id, see)
		}
		out = append(out, &Finding{RuleID: UnusedSuppression.ID, Severity: o.config.severity(UnusedSuppression.ID, UnusedSuppression.Severity),
			Range: rng, Message: msg, Fix: UnusedSuppression.Fix, Kit: k.Path, Fixes: suppressionFix(k, s)})
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
