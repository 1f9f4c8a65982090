// Package shimproto is what kitsmith and its in-container shim (the
// hidden `kitsmith __shim`) agree on: the header that labels a transparent
// connection, the wrapper's result record and how it is found in a hook's
// standard error, and the two-way copy both sides of the tunnel use.
package shimproto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// PathHeader is the request header the shim sets on the CONNECT it sends
// for a transparent connection, so the proxy can label the path.
const PathHeader = "X-Kitsmith-Path"

// Marker opens the wrapper's result line on its output; the run's
// nonce follows it.
const Marker = "\x00kitsmith-shim-result "

// Result is what the exec wrapper records of one hook.
type Result struct {
	// Exit is the hook's exit code; -1 when it could not be started or was
	// killed by a signal.
	Exit int `json:"exit"`
	// Error says why the hook could not be started, or the signal.
	Error string `json:"error,omitempty"`
	// DurationMS is how long the hook ran.
	DurationMS int64 `json:"durationMs"`
	// Env is the environment the hook was given, as name=value, sorted.
	Env []string `json:"env"`
	// Added, Changed and Removed are the files the hook wrote, each list
	// sorted and bounded.
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// FilesTruncated reports a walk or a list cut at its bound.
	FilesTruncated bool `json:"filesTruncated,omitempty"`
}

// Line is the result line the wrapper writes for nonce.
func Line(nonce string, r Result) string {
	b, _ := json.Marshal(r)
	return "\n" + Marker + nonce + " " + string(b) + "\n"
}

// ParseResult finds the result line of nonce in a hook's captured output
// and returns the output without it.
func ParseResult(output []byte, nonce string) (Result, []byte, error) {
	tag := "\n" + Marker + nonce + " "
	s := string(output)
	i := strings.LastIndex(s, tag)
	if i < 0 {
		return Result{}, output, errors.New("the hook wrapper recorded no result")
	}
	line, _, _ := strings.Cut(s[i+len(tag):], "\n")
	var r Result
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return Result{}, output, fmt.Errorf("reading the hook wrapper's result: %w", err)
	}
	return r, []byte(s[:i]), nil
}

// Splice copies both ways until both directions are done, half-closing
// each side as its source ends.
func Splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
	a.Close()
	b.Close()
}
