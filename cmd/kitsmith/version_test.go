package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/internal/version"
)

func TestVersion(t *testing.T) {
	text, _, code := runCLI(t, "version")
	if code != 0 {
		t.Fatalf("version: exit %d", code)
	}
	for _, want := range []string{"kitsmith ", "\n  commit:  ", "\n  date:    ", "\n  go:      " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("version output lacks %q:\n%s", want, text)
		}
	}
	flag, _, code := runCLI(t, "--version")
	if code != 0 || flag != text {
		t.Errorf("--version (exit %d) differs from version:\n%s\nwant:\n%s", code, flag, text)
	}
	js, _, code := runCLI(t, "version", "--format", "json")
	var v version.Document
	if err := json.Unmarshal([]byte(js), &v); err != nil || code != 0 {
		t.Fatalf("version --format json: exit %d, %v\n%s", code, err, js)
	}
	if v.Go != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH || v.Version == "" {
		t.Errorf("version --format json = %+v", v)
	}
}
