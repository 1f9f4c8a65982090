package lint

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// tokenFormats are well-known credential formats.
var tokenFormats = []struct {
	name string
	re   *regexp.Regexp
}{
	{"GitHub token", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`)},
	{"GitHub fine-grained token", regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}\b`)},
	{"GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"AWS access key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"Anthropic API key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{"OpenAI API key", regexp.MustCompile(`\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}`)},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"Stripe key", regexp.MustCompile(`\b[sr]k_live_[0-9A-Za-z]{20,}`)},
	{"npm token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{"Hugging Face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{34}\b`)},
	{"private key", regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----`)},
	{"JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
}

// secretKeyRE matches names of variables, keys and headers that hold
// credentials.
var secretKeyRE = regexp.MustCompile(`(?i)(?:^|[_.-])(?:api[_-]?key|apikey|key|token|secret|password|passwd|pwd|auth|authorization|credentials?|bearer|private[_-]?key|access[_-]?key)$`)

// secretPairRE finds "name: value" and name=value pairs in free text (file
// contents, headers): group 1 is the name, group 2 the value.
var secretPairRE = regexp.MustCompile(`(?i)["']?([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|key|token|secret|password|passwd|authorization|credential)s?)["']?\s*[:=]\s*(?:bearer\s+|basic\s+|token\s+)?["']?([^\s"',;}]+)`)

var literalSecret = &Rule{
	ID:       "literal-secret",
	Severity: SeverityError,
	Summary:  "A credential value is written into the kit.",
	Rationale: "Everything in a kit is published: the descriptor rides in a manifest annotation any puller can read, " +
		"and files and hooks are staged in the image. A key written there is leaked to everyone who can pull the kit, " +
		"and the sandbox's credential model (the secret stays on the host; the proxy injects it) is bypassed.",
	Fix: "Declare a credential@1 capability and let the proxy inject it; in hooks and files refer to the placeholder variable ($NAME), never the value.",
	Check: func(in *Input) []Finding {
		var out []Finding
		sentinels := sentinelValues(in)
		report := func(r spec.Range, where, kind, value string) {
			out = append(out, Finding{Range: r, Message: fmt.Sprintf("%s holds what looks like a %s (%s)", where, kind, mask(value))})
		}
		for _, h := range in.Hooks {
			if h.Script == nil {
				continue
			}
			where := fmt.Sprintf("%s hook %d", h.Phase, h.Index)
			for _, a := range h.Script.Assignments() {
				if a.Literal && secretKeyRE.MatchString(a.Name) && secretLike(a.Value, sentinels) {
					report(rangeAt(h.Script.Pos(a.Pos)), where, "secret in $"+a.Name, a.Value)
				}
			}
			for _, hit := range textSecrets(h.Script.Source, sentinels) {
				report(rangeAt(h.Script.pos(hit.line, hit.col)), where, hit.kind, hit.value)
			}
		}
		for _, f := range in.Files {
			pos := scalarPos(in.Kit, f.Field+".content")
			for _, hit := range textSecrets(f.Content, sentinels) {
				report(rangeAt(pos(hit.line, hit.col)), "file "+f.Path, hit.kind, hit.value)
			}
		}
		for _, name := range sortedKeys(in.Kit.Descriptor.Args) {
			a := in.Kit.Descriptor.Args[name]
			if a.Default == nil || *a.Default == "" {
				continue
			}
			if kind, ok := tokenKind(*a.Default); ok {
				report(in.Kit.PosOf("args."+name+".default"), "default of arg "+name, kind, *a.Default)
			} else if (secretKeyRE.MatchString(name) || secretKeyRE.MatchString(a.Env)) && secretLike(*a.Default, sentinels) {
				report(in.Kit.PosOf("args."+name+".default"), "default of arg "+name, "secret", *a.Default)
			}
		}
		out = append(out, recipeSecrets(in, sentinels)...)
		return out
	},
}

// recipeSecrets checks Dockerfile ENV and ARG defaults.
func recipeSecrets(in *Input, sentinels map[string]bool) []Finding {
	d := in.Recipe
	if d == nil {
		return nil
	}
	var out []Finding
	for _, n := range d.Instructions() {
		var pairs [][2]string
		switch strings.ToLower(n.Value) {
		case "env":
			for kv := n.Next; kv != nil && kv.Next != nil; kv = kv.Next.Next {
				pairs = append(pairs, [2]string{kv.Value, kv.Next.Value})
			}
		case "arg":
			for a := n.Next; a != nil; a = a.Next {
				if k, v, ok := strings.Cut(a.Value, "="); ok {
					pairs = append(pairs, [2]string{k, v})
				}
			}
		default:
			continue
		}
		for _, p := range pairs {
			v := strings.Trim(p[1], `"'`)
			kind, known := tokenKind(v)
			if !known && secretKeyRE.MatchString(p[0]) && secretLike(v, sentinels) {
				kind, known = "secret in "+p[0], true
			}
			if known {
				out = append(out, Finding{Range: rangeAt(d.Pos(n.StartLine, 1)),
					Message: fmt.Sprintf("%s %s in the recipe holds what looks like a %s (%s); build args and ENV are baked into the published image", strings.ToUpper(n.Value), p[0], kind, mask(v))})
			}
		}
	}
	return out
}

type textHit struct {
	line, col   int
	kind, value string
}

// textSecrets finds known token formats and secret-looking pairs in text.
func textSecrets(text string, sentinels map[string]bool) []textHit {
	var out []textHit
	for i, line := range strings.Split(text, "\n") {
		found := false
		for _, t := range tokenFormats {
			if loc := t.re.FindStringIndex(line); loc != nil {
				out = append(out, textHit{line: i + 1, col: loc[0] + 1, kind: t.name, value: line[loc[0]:loc[1]]})
				found = true
				break
			}
		}
		if found {
			continue
		}
		for _, m := range secretPairRE.FindAllStringSubmatchIndex(line, -1) {
			value := line[m[4]:m[5]]
			if secretLike(value, sentinels) {
				out = append(out, textHit{line: i + 1, col: m[4] + 1, kind: "secret in " + line[m[2]:m[3]], value: value})
				break
			}
		}
	}
	return out
}

func tokenKind(s string) (string, bool) {
	for _, t := range tokenFormats {
		if t.re.MatchString(s) {
			return t.name, true
		}
	}
	return "", false
}

// placeholderWords are values that stand for a secret without being one.
var placeholderWords = []string{"proxy-managed", "placeholder", "changeme", "change-me", "example", "dummy", "redacted", "sentinel", "your", "xxx", "***", "<", "todo", "none", "null", "test"}

// secretLike reports a literal that looks like a real credential: not a
// reference or placeholder, and long and random enough.
func secretLike(v string, sentinels map[string]bool) bool {
	v = strings.Trim(v, `"'`)
	if v == "" || sentinels[v] || strings.ContainsAny(v, "$`{}") {
		return false
	}
	lower := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(lower, w) {
			return false
		}
	}
	if _, ok := tokenKind(v); ok {
		return true
	}
	if len(v) < 16 || strings.ContainsAny(v, " /") {
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

// mask shows enough of a secret to find it, never the secret itself.
func mask(v string) string {
	if strings.HasPrefix(v, "-----BEGIN") {
		return "a PEM block"
	}
	n := len(v)
	keep := 4
	if n <= 8 {
		keep = 1
	}
	return fmt.Sprintf("%q, %d characters", v[:keep]+strings.Repeat("*", 6), n)
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
