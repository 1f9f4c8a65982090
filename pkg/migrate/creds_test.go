package migrate

import (
	"slices"
	"testing"
)

const credHead = `schemaVersion: "2"
kind: mixin
name: gh
version: "1.0.0"
sourceURL: https://example.org
licenses: [MIT]
`

// TestInjectDomainUnderWildcard: a credential's inject domain that a v2
// wildcard allow entry already covers gets its literal host added to the
// allow list (v3 wants it literally, SPEC-v3 §5.1), which grants nothing
// new; one no entry covers is left for a person, and the output is not
// valid.
func TestInjectDomainUnderWildcard(t *testing.T) {
	tests := []struct {
		name, allow, domain string
		wantAllow           []string
		valid               bool
	}{
		{"covered", `"*.github.com"`, "api.github.com", []string{"*.github.com", "api.github.com"}, true},
		{"covered with a port", `"*.github.com:443"`, "api.github.com", []string{"*.github.com:443", "api.github.com:443"}, true},
		{"already literal", `"*.github.com", api.github.com`, "api.github.com", []string{"*.github.com", "api.github.com"}, true},
		{"two labels down", `"*.github.com"`, "a.b.github.com", []string{"*.github.com"}, false},
		{"not covered", `example.org`, "api.github.com", []string{"example.org"}, false},
		{"covered only by **", `"**.github.com"`, "api.github.com", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := credHead + "permissions:\n  network:\n    allow: [" + tt.allow + "]\n" +
				"credentials:\n  - service: github\n    apiKey:\n      name: GITHUB_TOKEN\n      inject:\n        - domain: " + tt.domain + "\n          scheme: bearer\n"
			res := migrateSpec(t, src)
			got := surfaceOf(t, res).NetworkRuntimeAllow
			if !slices.Equal(got, tt.wantAllow) {
				t.Errorf("runtime allow = %q, want %q", got, tt.wantAllow)
			}
			if res.Validation.OK() != tt.valid {
				t.Errorf("valid = %v, want %v: %v", res.Validation.OK(), tt.valid, res.Validation.Err())
			}
		})
	}
}

// TestHookReadsCredential: an install hook whose env lists a credential's
// variable keeps the credential in the install phase too (v2 hooks had
// it) when its inject domains are allowed there; otherwise it is an
// action note. A credential no install hook reads stays runtime-only.
func TestHookReadsCredential(t *testing.T) {
	tests := []struct {
		name, allow, hook string
		wantInstall       bool
		wantAction        bool
	}{
		{"hook reads it", "api.github.com", `gh auth status --hostname github.com; echo "$GITHUB_TOKEN" | wc -c`, true, false},
		{"under a wildcard", `"*.github.com"`, `test -n "$GITHUB_TOKEN" && echo set`, true, false},
		{"inject domain not allowed", "example.org", `test -n "$GITHUB_TOKEN" && echo set`, false, true},
		{"hook does not read it", "api.github.com", `echo hello`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := credHead + "permissions:\n  network:\n    allow: [" + tt.allow + "]\n" +
				"credentials:\n  - service: github\n    apiKey:\n      name: GITHUB_TOKEN\n      inject:\n        - domain: api.github.com\n          scheme: bearer\n" +
				"setup:\n  install:\n    - command: '" + tt.hook + "'\n"
			res := migrateSpec(t, src)
			s := surfaceOf(t, res)
			if got := slices.Contains(s.CredentialsInstall, "github"); got != tt.wantInstall {
				t.Errorf("credential in install: %v, want %v", got, tt.wantInstall)
			}
			if !slices.Contains(s.CredentialsRuntime, "github") {
				t.Errorf("credential lost its runtime phase: %v", s.CredentialsRuntime)
			}
			if got := hasNote(res, "credential-install", true); got != tt.wantAction {
				t.Errorf("credential-install action: %v, want %v; notes %v", got, tt.wantAction, res.Notes)
			}
			if tt.wantInstall && !res.Validation.OK() {
				t.Errorf("the output does not validate: %v", res.Validation.Err())
			}
		})
	}
}
