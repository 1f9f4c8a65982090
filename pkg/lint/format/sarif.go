package format

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// SARIFSchema is the JSON schema URI a SARIF log names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// SrcRoot is the uriBaseId of every artifact location under the base
// directory: code scanning resolves it to the repository checkout.
const SrcRoot = "%SRCROOT%"

// FingerprintKey is the partialFingerprints key of kitsmith's results.
const FingerprintKey = "kitsmith/v1"

// SARIF writes a SARIF 2.1.0 log, as GitHub code scanning accepts it: one
// run with the metadata of every rule that ran (id, name, summary,
// rationale and fix as help text and markdown, help URI, default level, and
// for security rules the tag "security" and properties.security-severity),
// and a result per finding with its rule index, level, message, region and
// a partial fingerprint. Findings a kitsmith:ignore comment silenced are
// results too, with a suppression of kind inSource whose justification is
// the comment's reason. Nothing is written as filler: no empty arrays but
// results, no -1 ranks.
//
// Artifact URIs are relative to BaseDir with uriBaseId %SRCROOT%, and the
// run's originalUriBaseIds maps %SRCROOT% to BaseDir as a file URI; a file
// outside BaseDir keeps an absolute file URI.
type SARIF struct {
	// ToolVersion is recorded as the driver's version; "" omits it.
	ToolVersion string
	// BaseDir is the absolute directory URIs are relative to, normally the
	// repository root; "" keeps paths as they are, without a base.
	BaseDir string
	// Sources gives the flagged lines the fingerprints hash; nil hashes the
	// message instead.
	Sources Sources
}

// The SARIF 2.1.0 objects kitsmith writes: a designed subset, every field
// meaningful when present.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                        `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult                    `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules,omitempty"`
	}
	sarifRule struct {
		ID                   string               `json:"id"`
		Name                 string               `json:"name"`
		ShortDescription     sarifText            `json:"shortDescription"`
		FullDescription      sarifText            `json:"fullDescription"`
		Help                 *sarifMultiformat    `json:"help,omitempty"`
		HelpURI              string               `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfiguration   `json:"defaultConfiguration"`
		Properties           *sarifRuleProperties `json:"properties,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifMultiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifRuleProperties struct {
		Tags             []string `json:"tags,omitempty"`
		SecuritySeverity string   `json:"security-severity,omitempty"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		Fixes               []sarifFix         `json:"fixes,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
)

// Format implements Formatter.
func (s *SARIF) Format(w io.Writer, r *lint.Result) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "kitsmith", Version: s.ToolVersion, InformationURI: "https://github.com/kitsmith/kitsmith",
		}},
		Results: []sarifResult{},
	}
	if s.BaseDir != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{SrcRoot: {URI: dirURI(s.BaseDir)}}
	}
	index := map[string]int{}
	addRule := func(rule *lint.Rule) {
		if _, ok := index[rule.ID]; ok {
			return
		}
		index[rule.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(rule))
	}
	for _, rule := range r.Rules {
		addRule(rule)
	}
	fp := fingerprinter{seen: map[string]int{}, sources: s.Sources, secrets: secretSpans(r)}
	for _, group := range []struct {
		findings   []*lint.Finding
		suppressed bool
	}{{r.Findings, false}, {r.Suppressed, true}} {
		for _, f := range group.findings {
			if lint.IsSpecRule(f.RuleID) {
				addRule(lint.SpecRule(strings.TrimPrefix(f.RuleID, lint.SpecPrefix)))
			}
			if _, ok := index[f.RuleID]; !ok {
				return fmt.Errorf("sarif: finding of rule %s, which the result does not describe", f.RuleID)
			}
			res := s.result(f, index[f.RuleID], &fp)
			if group.suppressed {
				res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.Justification}}
			}
			run.Results = append(run.Results, res)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifRuleOf describes a rule.
func sarifRuleOf(rule *lint.Rule) sarifRule {
	out := sarifRule{
		ID:                   rule.ID,
		Name:                 ruleName(rule.ID),
		ShortDescription:     sarifText{rule.Summary},
		FullDescription:      sarifText{strings.TrimSpace(rule.Summary + " " + rule.Rationale)},
		HelpURI:              rule.HelpURI(),
		DefaultConfiguration: sarifConfiguration{Level: level(rule.Severity)},
	}
	if text, markdown := ruleHelp(rule); text != "" {
		out.Help = &sarifMultiformat{Text: text, Markdown: markdown}
	}
	if score, ok := lint.SecuritySeverity(rule.ID); ok {
		out.Properties = &sarifRuleProperties{Tags: []string{"security"}, SecuritySeverity: strconv.FormatFloat(score, 'f', 1, 64)}
	}
	return out
}

// result is the SARIF result of one finding.
func (s *SARIF) result(f *lint.Finding, ruleIndex int, fp *fingerprinter) sarifResult {
	start, end := f.Range.Start, f.Range.End
	region := sarifRegion{StartLine: max(start.Line, 1), StartColumn: max(start.Col, 1)}
	if end.Line == start.Line && end.Col > start.Col {
		region.EndLine, region.EndColumn = end.Line, end.Col
	}
	msg := f.Message
	if f.Fix != "" {
		msg += ". Fix: " + f.Fix
	}
	loc := s.location(start.File)
	return sarifResult{
		RuleID:    f.RuleID,
		RuleIndex: ruleIndex,
		Level:     level(f.Severity),
		Message:   sarifText{msg},
		Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: loc, Region: region}}},
		PartialFingerprints: map[string]string{
			FingerprintKey: fp.of(f, loc.URI),
		},
		Fixes: s.sarifFixes(f),
	}
}

// fingerprinter computes partial fingerprints that survive unrelated
// edits: a hash of the rule, the file, the flagged line's text without its
// indentation (literal secrets masked) and the finding's ordinal among
// findings with the same three, so that moving a line, or editing another
// one, keeps the fingerprint, and editing the flagged line changes it.
type fingerprinter struct {
	seen    map[string]int
	sources Sources
	secrets map[lineKey][][2]int
}

func (fp *fingerprinter) of(f *lint.Finding, uri string) string {
	text := f.Message
	if fp.sources != nil {
		if line, ok := fp.sources.Line(f.Range.Start.File, f.Range.Start.Line); ok {
			text = strings.TrimSpace(lint.Redact(line, fp.secrets[lineKey{f.Range.Start.File, f.Range.Start.Line}]...))
		}
	}
	key := f.RuleID + "\x00" + uri + "\x00" + text
	n := fp.seen[key]
	fp.seen[key] = n + 1
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

// ruleName turns a rule ID into the PascalCase name SARIF viewers show.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func level(s lint.Severity) string {
	switch s {
	case lint.SeverityError:
		return "error"
	case lint.SeverityWarning:
		return "warning"
	}
	return "note"
}

// location is the artifact location of a finding's file: relative to
// BaseDir with uriBaseId %SRCROOT%, else an absolute file URI (a relative
// path when there is no BaseDir, as given).
func (s *SARIF) location(p string) sarifArtifactLocation {
	if s.BaseDir == "" {
		return sarifArtifactLocation{URI: pathURI(filepath.ToSlash(p))}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return sarifArtifactLocation{URI: pathURI(filepath.ToSlash(p))}
	}
	rel, err := filepath.Rel(s.BaseDir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return sarifArtifactLocation{URI: fileURI(abs)}
	}
	return sarifArtifactLocation{URI: pathURI(filepath.ToSlash(rel)), URIBaseID: SrcRoot}
}

// pathURI escapes a slash-separated relative path as a URI reference.
func pathURI(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dirURI is the file: URI of a directory, ending in a slash as SARIF
// requires of a base URI.
func dirURI(abs string) string {
	u := fileURI(abs)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// ruleHelp is a rule's help text and markdown: its rationale, its fix and
// its documentation page, each only when the rule has it, so that a rule
// from elsewhere gets no empty section.
func ruleHelp(rule *lint.Rule) (text, markdown string) {
	var t, m []string
	if rule.Rationale != "" {
		t, m = append(t, rule.Rationale), append(m, rule.Rationale)
	}
	if rule.Fix != "" {
		t, m = append(t, "Fix: "+rule.Fix), append(m, "**Fix:** "+rule.Fix)
	}
	if uri := rule.HelpURI(); uri != "" {
		t, m = append(t, "Documentation: "+uri), append(m, "[Documentation]("+uri+")")
	}
	return strings.Join(t, "\n\n"), strings.Join(m, "\n\n")
}
