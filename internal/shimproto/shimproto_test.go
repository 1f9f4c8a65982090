package shimproto

import (
	"strings"
	"testing"
)

func TestParseResult(t *testing.T) {
	r := Result{Exit: 3, DurationMS: 12, Env: []string{"HOME=/root"}, Added: []string{"/tmp/x"}}
	out := "hook output\n" + Line("n1", Result{Exit: 9}) + "more\n" + Line("n2", r)
	got, rest, err := ParseResult([]byte(out), "n2")
	if err != nil {
		t.Fatal(err)
	}
	if got.Exit != 3 || got.DurationMS != 12 || got.Added[0] != "/tmp/x" {
		t.Errorf("result %+v", got)
	}
	if !strings.HasPrefix(string(rest), "hook output\n") || strings.Contains(string(rest), "n2") {
		t.Errorf("rest %q", rest)
	}
	// A line forged with another nonce is not the result.
	if _, _, err := ParseResult([]byte("x"+Line("forged", r)), "n3"); err == nil {
		t.Error("a result with another nonce was accepted")
	}
}
