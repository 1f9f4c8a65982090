package lint

import (
	"fmt"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// tokenFormats are well-known credential formats. Each has the literal
// prefixes one of which every match contains, which keeps the regular
// expressions off the lines that cannot match.
var tokenFormats = []struct {
	name     string
	prefixes []string
	re       *regexp.Regexp
}{
	{"GitHub token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`)},
	{"GitHub fine-grained token", []string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}\b`)},
	{"GitLab token", []string{"glpat-"}, regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"Slack token", []string{"xox"}, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"AWS access key", []string{"AKIA", "ASIA"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"Anthropic API key", []string{"sk-ant-"}, regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{"OpenAI API key", []string{"sk-"}, regexp.MustCompile(`\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}`)},
	{"Google API key", []string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"Stripe key", []string{"k_live_"}, regexp.MustCompile(`\b[sr]k_live_[0-9A-Za-z]{20,}`)},
	{"npm token", []string{"npm_"}, regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{"Hugging Face token", []string{"hf_"}, regexp.MustCompile(`\bhf_[A-Za-z0-9]{34}\b`)},
	{"Docker Hub token", []string{"dckr_pat_"}, regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{27,}`)},
	{"private key", []string{"PRIVATE KEY-----"}, regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----`)},
	{"JSON Web Token", []string{"eyJ"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
}

// findToken returns the first known token in s: its format and byte range.
func findToken(s string) (name string, loc []int) {
	for _, t := range tokenFormats {
		for _, p := range t.prefixes {
			if !strings.Contains(s, p) {
				continue
			}
			if loc := t.re.FindStringIndex(s); loc != nil {
				return t.name, loc
			}
			break
		}
	}
	return "", nil
}

// secretKeyRE matches names of variables, keys and headers that hold
// credentials: x-api-key, authorization, *_KEY, *_TOKEN, x-reshapr-key…
var secretKeyRE = regexp.MustCompile(`(?i)(?:^|[_.-])(?:api[_-]?key|apikey|key|token|secret|password|passwd|pwd|auth|authorization|credentials?|bearer|private[_-]?key|access[_-]?key)$`)

// secretPairRE finds "name: value" and name=value pairs in free text (file
// contents, headers, command lines): group 1 is the name, group 2 the
// value.
var secretPairRE = regexp.MustCompile(`(?i)["']?([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|key|token|secret|password|passwd|authorization|credential)s?)["']?\s*[:=]\s*(?:bearer\s+|basic\s+|token\s+)?["']?([^\s"',;}]+)`)

var literalSecret = &Rule{
	ID:       "literal-secret",
	Severity: SeverityError,
	Summary:  "A credential value is written into the kit.",
	Rationale: "Everything in a kit is published: the descriptor rides in a manifest annotation any puller can read, " +
		"and files, hooks and the recipe's ENV and ARG values are staged in the image. A key written there is leaked " +
		"to everyone who can pull the kit, and the sandbox's credential model (the secret stays on the host; the proxy " +
		"injects it) is bypassed. Known token formats are reported anywhere; other values when a secret-looking name " +
		"(x-api-key, authorization, *_KEY, *_TOKEN, x-reshapr-key…) holds a long random literal. Placeholders such as " +
		"$VAR, proxy-managed and declared sentinels are fine. The finding shows the value masked.",
	Fix: "Declare a credential@1 capability and let the proxy inject it (sbx secret set <service>); in hooks and files " +
		"refer to the variable ($NAME) or a placeholder such as proxy-managed, never the value. Revoke the leaked key.",
	Check: func(in *Input) []Finding {
		s := &secretScan{in: in, sentinels: sentinelValues(in), seen: map[spec.Pos]bool{}}
		s.hooks()
		s.files()
		s.args()
		s.recipe()
		s.acpEnv()
		s.knownTokens()
		s.contextFiles()
		sort.SliceStable(s.out, func(i, j int) bool { return s.out[i].Range.Start.Before(s.out[j].Range.Start) })
		return s.out
	},
}

// secretScan collects literal-secret findings, one per source line.
type secretScan struct {
	in        *Input
	sentinels map[string]bool
	seen      map[spec.Pos]bool // file and line already reported
	out       []Finding
}

// report records a secret at r; kind is what it looks like ("secret in
// x-api-key"), unless value is a known token format, which then names it.
func (s *secretScan) report(r spec.Range, where, kind, value string) {
	line := spec.Pos{File: r.Start.File, Line: r.Start.Line}
	if s.seen[line] {
		return
	}
	s.seen[line] = true
	if known, ok := tokenKind(value); ok {
		kind = known
	}
	s.out = append(s.out, Finding{Range: r, Message: fmt.Sprintf("%s holds what looks like %s %s (%s); everything in a kit is published with it",
		where, article(kind), kind, mask(value))})
}

// article is "an" before a vowel sound, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// knownTokens scans every source file of the kit for known token formats.
func (s *secretScan) knownTokens() {
	for _, name := range slices.Sorted(maps.Keys(s.in.sources)) {
		src := string(s.in.source(name))
		if _, loc := findToken(src); loc == nil {
			continue
		}
		for i, line := range strings.Split(src, "\n") {
			if kind, loc := findToken(line); loc != nil && !placeholder(line[loc[0]:loc[1]]) {
				p := spec.Pos{File: name, Line: i + 1, Col: loc[0] + 1}
				s.report(rangeWidth(p, loc[1]-loc[0]), "this line", kind, line[loc[0]:loc[1]])
			}
		}
	}
}

// contextFiles scans the agent-context contentFile bodies, which build
// stages into the image: known token formats and secret-looking pairs.
func (s *secretScan) contextFiles() {
	k := s.in.Kit
	for _, name := range slices.Sorted(maps.Keys(k.Files)) {
		file, body := path.Join(k.Dir, name), string(k.Files[name])
		where := "context file " + name
		pos := func(line, col int) spec.Pos { return spec.Pos{File: file, Line: line, Col: col} }
		if _, loc := findToken(body); loc != nil {
			for i, line := range strings.Split(body, "\n") {
				if kind, loc := findToken(line); loc != nil && !placeholder(line[loc[0]:loc[1]]) {
					s.report(rangeWidth(pos(i+1, loc[0]+1), loc[1]-loc[0]), where, kind, line[loc[0]:loc[1]])
				}
			}
		}
		s.pairs(body, pos, where)
	}
}

func (s *secretScan) hooks() {
	seen := map[*Script]bool{}
	for _, h := range s.in.Hooks {
		if h.Via != "" && h.Source == "" || !firstRun(seen, h) {
			continue // a staged lifecycle file: files() scans it
		}
		if h.Script != nil {
			for _, a := range h.Script.Assignments() {
				if a.Literal && a.Word != nil && secretKeyRE.MatchString(a.Name) && secretLike(a.Value, s.sentinels) {
					s.report(h.Script.Range(a.ValuePos, a.ValueEnd), h.Label(), "secret in $"+a.Name, a.Value)
				}
			}
		}
		if h.Source != "" { // a kit file the recipe copies: its text is the script
			s.pairs(h.Script.Source, h.Script.pos, h.Label())
			continue
		}
		if h.Command.IsShell {
			s.pairs(h.Command.Shell, s.in.Kit.ValuePos(h.Field+".command"), h.Label())
			continue
		}
		for j, arg := range h.Command.Argv {
			s.pairs(arg, s.in.Kit.ValuePos(fmt.Sprintf("%s.command[%d]", h.Field, j)), h.Label())
		}
	}
}

func (s *secretScan) files() {
	for _, f := range s.in.Files {
		where := "file " + f.Path
		if f.Script != nil {
			for _, a := range f.Script.Assignments() {
				if a.Literal && a.Word != nil && secretKeyRE.MatchString(a.Name) && secretLike(a.Value, s.sentinels) {
					s.report(f.Script.Range(a.ValuePos, a.ValueEnd), where, "secret in $"+a.Name, a.Value)
				}
			}
		}
		s.pairs(f.Content, s.in.contentPos(f), where)
	}
}

// pairs reports secret-looking name/value pairs in text.
func (s *secretScan) pairs(text string, pos func(line, col int) spec.Pos, where string) {
	if !mayHoldPair(text) {
		return
	}
	for i, line := range strings.Split(text, "\n") {
		if !mayHoldPair(line) {
			continue
		}
		for _, m := range secretPairRE.FindAllStringSubmatchIndex(line, -1) {
			if value := line[m[4]:m[5]]; secretLike(value, s.sentinels) {
				s.report(rangeWidth(pos(i+1, m[4]+1), m[5]-m[4]), where, "secret in "+line[m[2]:m[3]], value)
				break
			}
		}
	}
}

// pairWords are the words one of which a secretPairRE match contains.
var pairWords = []string{"key", "token", "secret", "passw", "authorization", "credential"}

// mayHoldPair reports whether text could match secretPairRE: a cheap
// test that keeps the regular expression off most lines.
func mayHoldPair(text string) bool {
	if !strings.ContainsAny(text, ":=") {
		return false
	}
	lower := strings.ToLower(text)
	for _, w := range pairWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func (s *secretScan) args() {
	args := s.in.Kit.Descriptor.Args
	for _, name := range slices.Sorted(maps.Keys(args)) {
		a := args[name]
		if a.Default == nil || *a.Default == "" {
			continue
		}
		if (secretKeyRE.MatchString(name) || secretKeyRE.MatchString(a.Env)) && secretLike(*a.Default, s.sentinels) {
			s.report(s.in.Kit.PosOf("args."+name+".default"), "the default of arg "+name, "secret", *a.Default)
		}
	}
}

func (s *secretScan) recipe() {
	d := s.in.Recipe
	if d == nil {
		return
	}
	for _, v := range d.Vars() {
		value := strings.Trim(v.Value, `"'`)
		if v.HasValue && secretKeyRE.MatchString(v.Name) && secretLike(value, s.sentinels) {
			s.report(v.ValueRange, fmt.Sprintf("%s %s in the recipe", v.Instruction, v.Name), "secret", value)
		}
	}
}

// acpEnv checks the env map of acp@1 entries.
func (s *secretScan) acpEnv() {
	for _, e := range s.in.Entries {
		if e.Type != spec.TypeACP {
			continue
		}
		env, _ := e.Config["env"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(env)) {
			v, _ := env[name].(string)
			if secretKeyRE.MatchString(name) && secretLike(v, s.sentinels) {
				s.report(s.in.Kit.PosOf(e.Field()+".config.env."+name), "acp env "+name, "secret", v)
			}
		}
	}
}

func tokenKind(s string) (string, bool) {
	name, loc := findToken(s)
	return name, loc != nil
}

// placeholderWords are values that stand for a secret without being one.
var placeholderWords = []string{"proxy-managed", "placeholder", "changeme", "change-me", "example", "dummy", "redacted",
	"sentinel", "your", "xxx", "***", "<", "todo", "none", "null", "test", "fake", "sample"}

// placeholder reports a value that contains a placeholder word.
func placeholder(v string) bool {
	lower := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// secretLike reports a literal that looks like a real credential: not a
// reference or placeholder, and long and random enough.
func secretLike(v string, sentinels map[string]bool) bool {
	v = strings.Trim(v, `"'`)
	if v == "" || sentinels[v] || strings.ContainsAny(v, "$`{}%") {
		return false
	}
	if placeholder(v) {
		return false
	}
	if _, ok := tokenKind(v); ok {
		return true
	}
	if len(v) < 16 || strings.ContainsAny(v, " \t") || strings.Contains(v, "://") || strings.HasPrefix(v, "/") ||
		strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return false
	}
	letters, digits := false, false
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters = true
		}
	}
	return letters && digits && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	var h float64
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}

// mask shows enough of a secret to find it, never the secret itself: its
// first characters (at most a quarter of it) and its length.
func mask(v string) string {
	if strings.HasPrefix(v, "-----BEGIN") {
		return "a PEM block"
	}
	keep := min(4, len(v)/4)
	return fmt.Sprintf("%q, %d characters", v[:keep]+strings.Repeat("*", 8), len(v))
}

// sentinelValues collects the placeholder tokens credentials declare.
func sentinelValues(in *Input) map[string]bool {
	out := map[string]bool{}
	for _, e := range in.Entries {
		if e.Type != spec.TypeCredential {
			continue
		}
		var c spec.Credential
		if spec.DecodeConfig(e.Config, &c) != nil || c.OAuth == nil || c.OAuth.Sentinels == nil {
			continue
		}
		out[c.OAuth.Sentinels.AccessToken] = true
		out[c.OAuth.Sentinels.RefreshToken] = true
	}
	return out
}

// Redact returns a source line as a report may show it: every secret in it
// replaced by asterisks of the same length after its first characters (at
// most a quarter of it), so that columns and carets stay right. It masks
// known token formats, secret-looking name/value pairs and PEM blocks
// wherever they are, and the spans given as 1-based [start, end) byte
// columns (where literal-secret findings point). Formatters apply it to
// every excerpt: a finding of another rule, or a YAML syntax error, can
// show a line that holds a secret.
func Redact(line string, spans ...[2]int) string {
	b := []byte(line)
	hide := func(from, to int) {
		from, to = max(from, 0), min(to, len(b))
		for from < to && (b[from] == '"' || b[from] == '\'') {
			from++
		}
		for to > from && (b[to-1] == '"' || b[to-1] == '\'') {
			to--
		}
		if strings.HasPrefix(string(b[from:to]), "-----BEGIN") {
			return // a PEM header names the block; its body is the secret
		}
		keep := min(4, (to-from)/4)
		for i := from + keep; i < to; i++ {
			b[i] = '*'
		}
	}
	for _, sp := range spans {
		hide(sp[0]-1, sp[1]-1)
	}
	for _, t := range tokenFormats {
		for _, p := range t.prefixes {
			if strings.Contains(line, p) {
				for _, loc := range t.re.FindAllStringIndex(line, -1) {
					if !placeholder(line[loc[0]:loc[1]]) {
						hide(loc[0], loc[1])
					}
				}
				break
			}
		}
	}
	if mayHoldPair(line) {
		for _, m := range secretPairRE.FindAllStringSubmatchIndex(line, -1) {
			if secretLike(line[m[4]:m[5]], nil) {
				hide(m[4], m[5])
			}
		}
	}
	return string(b)
}
