package conform

import (
	"errors"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func declaresSBX(d *spec.Descriptor) bool {
	for _, e := range d.Entries() {
		if e.Type == spec.TypeSBX {
			return true
		}
	}
	return false
}

// account is what a host reads from the image to honour its user.
type account struct {
	name, home string
	uid, gid   int64
}

// parseID reads a uid or gid a host can hold: digits, below the 32-bit
// "no id" sentinel.
func parseID(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id >= math.MaxUint32 {
		return 0, false
	}
	return id, true
}

func isNumeric(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// lookupUser resolves an image config user (name or uid, optionally with
// :group) against /etc/passwd and /etc/group. A numeric user is a uid;
// rows that are comments, short, or lack a usable id or absolute home are
// passed over.
func lookupUser(passwd, group, user string) (account, bool) {
	want, wantGroup, hasGroup := strings.Cut(user, ":")
	hasGroup = hasGroup && wantGroup != ""
	numeric := isNumeric(want)
	wantID, ok := parseID(want)
	if numeric && !ok {
		return account{}, false
	}
	for _, line := range strings.Split(passwd, "\n") {
		line = strings.TrimSuffix(line, "\r")
		fields := strings.Split(line, ":")
		if strings.HasPrefix(line, "#") || len(fields) != 7 {
			continue
		}
		if numeric {
			if id, ok := parseID(fields[2]); !ok || id != wantID {
				continue
			}
		} else if fields[0] != want {
			continue
		}
		uid, uok := parseID(fields[2])
		gid, gok := parseID(fields[3])
		if fields[0] == "" || !uok || !gok || !strings.HasPrefix(fields[5], "/") {
			continue
		}
		a := account{name: fields[0], home: fields[5], uid: uid, gid: gid}
		if !hasGroup {
			return a, true
		}
		if a.gid, ok = lookupGroup(group, wantGroup); !ok {
			return account{}, false
		}
		return a, true
	}
	return account{}, false
}

func lookupGroup(groupFile, want string) (int64, bool) {
	if isNumeric(want) {
		return parseID(want)
	}
	for _, line := range strings.Split(groupFile, "\n") {
		line = strings.TrimSuffix(line, "\r")
		fields := strings.Split(line, ":")
		if strings.HasPrefix(line, "#") || len(fields) != 4 || fields[0] != want {
			continue
		}
		if gid, ok := parseID(fields[2]); ok {
			return gid, true
		}
	}
	return 0, false
}

// executableBy reports whether the account may execute the file: its own
// mode bits (root needs any execute bit).
func executableBy(n *kitimage.Node, a account) bool {
	if n.Type != kitimage.TypeReg {
		return false
	}
	switch {
	case a.uid == 0:
		return n.Mode&0o111 != 0
	case int64(n.UID) == a.uid:
		return n.Mode&0o100 != 0
	case int64(n.GID) == a.gid:
		return n.Mode&0o010 != 0
	}
	return n.Mode&0o001 != 0
}

func checkSBXFloor(s *checkState) []Finding {
	if !declaresSBX(s.d) {
		return nil
	}
	if s.d.Kind != spec.KindWorkload {
		return fail("the kit is a %s but declares sbx@1: only a workload carries the platform floor, since a mixin's image config never becomes the sandbox's", s.d.Kind)
	}
	c, err := s.imageConfig()
	if err != nil {
		return fail("the image config does not parse: %v", err)
	}
	if f := s.noFS(); f != nil {
		return f
	}
	var out []Finding
	user := c.Config.User
	var who account
	resolved := false
	if strings.TrimSpace(user) == "" {
		out = append(out, withSpec("sbx@1/image-declares-user",
			fail("the image config declares no USER: declaring sbx@1 asks the host to honour the identity the image states (set USER agent in the recipe)"))...)
	} else {
		who, resolved, out = s.resolveUser(user)
	}
	for _, sh := range []struct{ path, ref string }{{"/bin/sh", "sbx@1/posix-shell-present"}, {"/bin/bash", "sbx@1/bash-present"}} {
		n := s.fs.Lookup(sh.path, true)
		switch {
		case n == nil:
			out = append(out, withSpec(sh.ref, fail("%s is missing: the host runs hooks through sh and launches the agent under bash", sh.path))...)
		case resolved && !executableBy(n, who):
			out = append(out, withSpec(sh.ref, fail("%s is not executable by %s (uid %d), the user the image declares: the host runs hooks through sh and launches the agent under bash", sh.path, user, who.uid))...)
		}
	}
	return out
}

// resolveUser resolves the config user in the image's account files.
func (s *checkState) resolveUser(user string) (account, bool, []Finding) {
	const ref = "sbx@1/user-resolves-in-passwd"
	passwd, err := s.fs.ReadFile("/etc/passwd")
	switch {
	case errors.Is(err, kitimage.ErrFileTooBig):
		return account{}, false, withSpec(ref, warn("/etc/passwd is larger than kitsmith reads, so user %q was not resolved", user))
	case err != nil:
		return account{}, false, withSpec(ref, fail("the image has no readable /etc/passwd (%v), so user %q resolves to nothing the host can read before the container exists", err, user))
	}
	var group []byte
	if _, g, ok := strings.Cut(user, ":"); ok && g != "" && !isNumeric(g) {
		group, _ = s.fs.ReadFile("/etc/group")
	}
	a, ok := lookupUser(string(passwd), string(group), user)
	if !ok {
		return a, false, withSpec(ref, fail("user %q does not resolve to a uid, gid and absolute home in /etc/passwd: the host reads those from the image before the container exists", user))
	}
	return a, true, nil
}

func checkSBXEnv(s *checkState) []Finding {
	if !declaresSBX(s.d) || s.d.Kind != spec.KindWorkload {
		return nil
	}
	c, err := s.imageConfig()
	if err != nil {
		return fail("the image config does not parse: %v", err)
	}
	var file string
	for _, e := range c.Config.Env {
		if v, ok := strings.CutPrefix(e, "BASH_ENV="); ok {
			file = v
		}
	}
	switch {
	case file == "":
		return warn("the image config sets no BASH_ENV, so the agent starts without the sandbox's persistent environment (set ENV BASH_ENV=/etc/sandbox-persistent.sh, a file the image ships)")
	case !path.IsAbs(file):
		return warn("BASH_ENV is %q, which bash resolves against whatever directory the agent runs from; name an absolute path", file)
	}
	if f := s.noFS(); f != nil {
		return f
	}
	if s.fs.Lookup(file, true) == nil {
		return warn("BASH_ENV names %s, which the image does not ship", file)
	}
	return nil
}
