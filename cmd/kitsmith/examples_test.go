package main

import (
	"slices"
	"strings"
	"testing"
)

// exampleCommands returns the command lines of an Example text: comment
// lines dropped, continued lines joined, a trailing comment or redirection
// cut.
func exampleCommands(example string) []string {
	var out []string
	cur := ""
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if cur == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		cur += line
		if i := strings.Index(cur, " # "); i >= 0 {
			cur = cur[:i]
		}
		if i := strings.Index(cur, " > "); i >= 0 {
			cur = cur[:i]
		}
		out = append(out, strings.TrimSpace(cur))
		cur = ""
	}
	return out
}

// shellWords splits s as a shell would, for the quoting Examples use:
// single and double quotes, no escapes inside them.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// TestExamplesParse: every Example line of every command parses: it
// names the command, its flags exist and take the values given, and its
// arguments are as many as the command takes.
func TestExamplesParse(t *testing.T) {
	for _, c := range newRootCmd(&rootOptions{env: env{}}).Commands() {
		if c.Hidden {
			continue // kitsmith __shim runs inside kitsmith test's container, not for people
		}
		if !strings.Contains(c.Long, "Exit status: 0") {
			t.Errorf("kitsmith %s --help does not document its exit status", c.Name())
		}
		if c.Use != c.Name() && !strings.HasPrefix(c.Use, c.Name()+" [flags]") {
			t.Errorf("kitsmith %s: Use %q does not put [flags] first, as every command does", c.Name(), c.Use)
		}
		lines := exampleCommands(c.Example)
		if len(lines) == 0 {
			t.Errorf("kitsmith %s has no Example", c.Name())
		}
		for _, line := range lines {
			t.Run(line, func(t *testing.T) {
				words := shellWords(line)
				if len(words) < 2 || words[0] != "kitsmith" || words[1] != c.Name() {
					t.Fatalf("the example of kitsmith %s runs %q", c.Name(), line)
				}
				// A fresh tree: flags keep the values they parse.
				root := newRootCmd(&rootOptions{env: env{}})
				cmd, rest, err := root.Find(words[1:])
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.ParseFlags(rest); err != nil {
					t.Fatalf("flags: %v", err)
				}
				if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
					t.Errorf("arguments: %v", err)
				}
			})
		}
	}
}

// TestFlagsAgree: a flag name means one thing with one spelling across
// commands: every command that reads a registry takes
// --insecure-registry, --format lists its default first, --platform shows
// its form.
func TestFlagsAgree(t *testing.T) {
	readsRegistry := []string{"validate", "build", "inspect", "check", "sign", "verify", "publish", "diff", "resolve", "test"}
	for _, c := range newRootCmd(&rootOptions{env: env{}}).Commands() {
		if slices.Contains(readsRegistry, c.Name()) && c.Flags().Lookup("insecure-registry") == nil {
			t.Errorf("kitsmith %s reads registries but has no --insecure-registry", c.Name())
		}
		if f := c.Flags().Lookup("format"); f != nil && !strings.Contains(f.Usage, "format: "+f.DefValue) {
			t.Errorf("kitsmith %s --format: %q does not list its default %q first", c.Name(), f.Usage, f.DefValue)
		}
		if f := c.Flags().Lookup("platform"); f != nil && !strings.Contains(f.Usage, "comma-separated") && !strings.Contains(f.Usage, "e.g. linux/arm64") {
			t.Errorf("kitsmith %s --platform: %q shows no example value", c.Name(), f.Usage)
		}
	}
}
