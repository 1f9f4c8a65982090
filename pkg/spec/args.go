package spec

import "regexp"

// ArgRefPattern matches a ${{ kit.args.NAME }} reference; group 1 is NAME.
var argRef = regexp.MustCompile(`\$\{\{\s*kit\.args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// envRef matches a ${{ kit.env.NAME }} reference; group 1 is NAME.
var envRef = regexp.MustCompile(`\$\{\{\s*kit\.env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// anyRef matches the start of any ${{ … }} placeholder.
var anyRef = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// hasRef reports whether s holds an arg or env reference.
func hasRef(s string) bool { return argRef.MatchString(s) || envRef.MatchString(s) }
