package signer

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		s    Signer
		want string // "" for valid
	}{
		{Signer{Identity: "a@example.org", Issuer: "https://i.example"}, ""},
		{Signer{IdentityRegexp: `^https://github\.com/acme/(kits|tools)/.*$`, IssuerRegexp: `^https://(a|b)\.example$`}, ""},
		{Signer{Identity: "a", IdentityRegexp: "^a$", Issuer: "i"}, "exactly one of identity"},
		{Signer{Identity: "a"}, "exactly one of issuer"},
		{Signer{IdentityRegexp: "https://github.com/org/", Issuer: "i"}, "not anchored"},
		{Signer{IdentityRegexp: "^https://github.com/org/", Issuer: "i"}, "not anchored"},
		// #16 item 8: textually ^…$, but (^a)|(b$)
		{Signer{IdentityRegexp: `^kitsmith-test@example\.com|evil$`, Issuer: "i"}, "not anchored as a whole"},
		{Signer{Identity: "a", IssuerRegexp: "^https://a|b$"}, "issuerRegexp"},
		{Signer{IdentityRegexp: "^(a$", Issuer: "i"}, "identityRegexp"},
	}
	for _, tc := range tests {
		err := tc.s.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%+v) = %v, want %q", tc.s, err, tc.want)
		}
	}
}

func TestWholeMatch(t *testing.T) {
	got := Signer{IdentityRegexp: "^a|b$", Issuer: "i"}.WholeMatch()
	if want := (Signer{IdentityRegexp: "^(?:^a|b$)$", Issuer: "i"}); got != want {
		t.Errorf("WholeMatch = %+v, want %+v", got, want)
	}
}

func TestParseList(t *testing.T) {
	if l, err := ParseList([]byte(`[{"identity":"a@example.org","issuer":"https://i"},{"identityRegexp":"^dev@.*$","issuer":"https://i"}]`)); err != nil || len(l) != 2 {
		t.Errorf("ParseList = %v, %v", l, err)
	}
	for in, want := range map[string]string{
		"":                                       "no trusted signer",
		"[]":                                     "no trusted signer",
		"[{identity: a}]":                        "signer 1: state exactly one of issuer",
		"[{identity: a, issuer: i, x: 1}]":       "field x not found",
		`[{identityRegexp: "^dev@", issuer: i}]`: "not anchored",
	} {
		if _, err := ParseList([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseList(%q) = %v, want %q", in, err, want)
		}
	}
}
