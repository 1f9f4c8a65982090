//go:build kitsmith_testtools

package main

import (
	"strings"
	"testing"
)

func TestRunRejects(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "only a loopback IP address"},
		{[]string{"--listen", "localhost:0"}, "only a loopback IP address"},
		{[]string{"--listen", "127.0.0.1"}, "--listen"},
		{[]string{"--listen", "127.0.0.1:0", "--actions-token-file", "/nonexistent/token"}, "reading actions token"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			err := run(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) = %v, want an error mentioning %q", tc.args, err, tc.want)
			}
		})
	}
}
