package conform

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Package databases read for derived provides (SPEC-v3 §7.6), as absolute
// paths in a workload's root filesystem.
const (
	DpkgStatusPath   = "/var/lib/dpkg/status"
	ApkInstalledPath = "/lib/apk/db/installed"
)

// maxDatabaseLine bounds one line of a package database: dpkg keeps long
// Description and Conffiles bodies, and a line past the bound is an error
// rather than a silently shorter package list.
const maxDatabaseLine = 1 << 20

// Package is one installed package as its database records it; Version is
// the raw version (PackageVersion turns it into a provides version).
type Package struct {
	Name    string
	Version string
}

// packageDB is one package manager's database and the provides namespace
// its packages are published under.
type packageDB struct {
	namespace string
	path      string
	read      func(io.Reader) ([]Package, error)
}

var packageDBs = []packageDB{
	{namespace: "deb", path: DpkgStatusPath, read: ReadDpkgStatus},
	{namespace: "apk", path: ApkInstalledPath, read: ReadApkInstalled},
}

// ReadDpkgStatus lists the packages a dpkg status file records as
// installed. A removed package that keeps its configuration files
// ("deinstall ok config-files") is not installed and is left out.
func ReadDpkgStatus(r io.Reader) ([]Package, error) {
	var out []Package
	err := eachStanza(r, func(line string) (string, string, bool) {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			return "", "", false // continuation of a multi-line field
		}
		k, v, ok := strings.Cut(line, ":")
		return strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v), ok
	}, func(f map[string]string) {
		status := strings.Fields(f["status"])
		if len(status) == 0 || status[len(status)-1] != "installed" || f["package"] == "" {
			return
		}
		out = append(out, Package{Name: f["package"], Version: f["version"]})
	})
	if err != nil {
		return nil, fmt.Errorf("reading dpkg status: %w", err)
	}
	return out, nil
}

// ReadApkInstalled lists the packages an apk installed database records;
// apk keeps no records of removed packages, so every stanza counts.
func ReadApkInstalled(r io.Reader) ([]Package, error) {
	var out []Package
	err := eachStanza(r, func(line string) (string, string, bool) {
		k, v, ok := strings.Cut(line, ":")
		return k, v, ok && len(k) == 1
	}, func(f map[string]string) {
		if f["P"] != "" {
			out = append(out, Package{Name: f["P"], Version: f["V"]})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading apk installed database: %w", err)
	}
	return out, nil
}

// eachStanza calls emit with the fields of every blank-line-separated
// record, split into key and value by split.
func eachStanza(r io.Reader, split func(string) (string, string, bool), emit func(map[string]string)) error {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), maxDatabaseLine)
	fields := map[string]string{}
	flush := func() {
		if len(fields) > 0 {
			emit(fields)
			fields = map[string]string{}
		}
	}
	for s.Scan() {
		line := strings.TrimSuffix(s.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if k, v, ok := split(line); ok {
			fields[k] = v
		}
	}
	if err := s.Err(); err != nil {
		return err
	}
	flush()
	return nil
}

var (
	epochRE = regexp.MustCompile(`^[0-9]+:`)
	coreRE  = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}`)
)

// PackageVersion turns a raw dpkg or apk version into the version a
// derived provides entry carries (SPEC-v3 §7.6): the epoch and the
// revision or release (after the last "-") are stripped, and the leading
// numeric core of at most three parts is kept, never padded. A version
// whose upstream part contains "~" (a pre-release) or has no numeric core
// yields "". Examples: "1:2.5.2-3+dhi1" → "2.5.2", "1.36.1-r15" → "1.36.1",
// "9.20.26-1~deb13u1" → "9.20.26", "2.0~rc1-1" → "".
func PackageVersion(raw string) string {
	v := epochRE.ReplaceAllString(strings.TrimSpace(raw), "")
	if i := strings.LastIndex(v, "-"); i >= 0 {
		v = v[:i]
	}
	if strings.Contains(v, "~") {
		return ""
	}
	core := coreRE.FindString(v)
	if core == "" || spec.CheckVersion(core) != nil {
		return ""
	}
	return core
}

// DerivedProvides returns the deb/<pkg>@<version> and apk/<pkg>@<version>
// provides entries of one platform's root filesystem, sorted, from the
// contents of its dpkg status file and apk installed database (either may
// be nil). Only installed packages count; a package whose version yields
// no PackageVersion, whose name is not a valid capability name, or that a
// multi-architecture database records at two different versions is left
// out. A database that cannot be read contributes nothing. Combine
// platforms with IntersectProvides.
func DerivedProvides(dpkgStatus, apkInstalled []byte) []string {
	var out []string
	for _, db := range packageDBs {
		body := dpkgStatus
		if db.namespace == "apk" {
			body = apkInstalled
		}
		if len(body) == 0 {
			continue
		}
		pkgs, err := db.read(bytes.NewReader(body))
		if err != nil {
			continue
		}
		out = append(out, providesOf(db.namespace, pkgs)...)
	}
	slices.Sort(out)
	return out
}

// providesOf renders the packages of one database as provides entries,
// dropping names recorded at conflicting or unnameable versions.
func providesOf(namespace string, pkgs []Package) []string {
	const conflicted = ""
	versions := map[string]string{}
	var order []string
	for _, p := range pkgs {
		name := namespace + "/" + p.Name
		if spec.CheckName(name) != nil {
			continue
		}
		v := PackageVersion(p.Version)
		prev, seen := versions[name]
		switch {
		case !seen:
			versions[name] = v
			order = append(order, name)
		case prev != v:
			versions[name] = conflicted
		}
	}
	out := make([]string, 0, len(order))
	for _, name := range order {
		if v := versions[name]; v != conflicted {
			out = append(out, name+"@"+v)
		}
	}
	return out
}

// IntersectProvides returns the entries every platform's list holds,
// sorted: a kit publishes one descriptor for all its platforms, so a
// package only some carry, or one whose version differs between them, is
// dropped (SPEC-v3 §7.6). No lists yield nil.
func IntersectProvides(perPlatform ...[]string) []string {
	if len(perPlatform) == 0 {
		return nil
	}
	count := map[string]int{}
	for _, list := range perPlatform {
		seen := map[string]bool{}
		for _, e := range list {
			if !seen[e] {
				seen[e] = true
				count[e]++
			}
		}
	}
	var out []string
	for e, n := range count {
		if n == len(perPlatform) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}
