package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// localRefHint returns a "did you mean" hint when ref, read as a registry
// reference, would go to the default registry (no host in it) but names a
// local path: oci: for an OCI layout directory, oci-archive: for another
// file, and the way to build a kit image for a kit source; otherwise "".
func localRefHint(ref string) string {
	if strings.HasPrefix(ref, artifact.LayoutPrefix) || strings.HasPrefix(ref, artifact.ArchivePrefix) {
		return ""
	}
	first, _, hasSlash := strings.Cut(ref, "/")
	if hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return "" // names a registry host
	}
	fi, err := os.Stat(ref)
	switch {
	case err != nil:
		return ""
	case isLayoutDir(ref):
		return "hint: did you mean " + artifact.LayoutPrefix + ref + "? (a local OCI layout directory; write docker.io/" + ref + " for Docker Hub)"
	case fi.IsDir() || isKitSourceFile(ref):
		return "hint: " + ref + " is a kit source, not a kit image: build one with 'kitsmith build --output " + artifact.LayoutPrefix + "out " + ref +
			"' and name " + artifact.LayoutPrefix + "out (kitsmith validate and lint judge a source)"
	case fi.Mode().IsRegular():
		return "hint: did you mean " + artifact.ArchivePrefix + ref + "? (a local OCI archive; write docker.io/" + ref + " for Docker Hub)"
	}
	return ""
}

// refHint returns the hint for err, a failure to read ref as a kit image:
// localRefHint's for a local path, how to write a registry reference for
// one with a URL scheme or capitals in its repository, else openHint's.
func refHint(ref string, err error) string {
	if h := localRefHint(ref); h != "" {
		return h
	}
	return registryRefHint(ref, err)
}

// registryRefHint is refHint without the local-path hint.
func registryRefHint(ref string, err error) string {
	if host, rest, ok := strings.Cut(ref, "://"); ok && (host == "http" || host == "https") {
		return "hint: a registry reference has no URL scheme: write " + rest +
			" (loopback registries are reached over HTTP anyway; another host that serves plain HTTP needs --insecure-registry)"
	}
	if repo := repositoryPath(ref); repo != strings.ToLower(repo) {
		return "hint: repository names are lowercase: write " + strings.Replace(ref, repo, strings.ToLower(repo), 1)
	}
	return openHint(err)
}

// repositoryPath returns the repository path of a registry reference
// (without its host, tag or digest), or "" for oci: and oci-archive:
// references.
func repositoryPath(ref string) string {
	if strings.HasPrefix(ref, artifact.LayoutPrefix) || strings.HasPrefix(ref, artifact.ArchivePrefix) {
		return ""
	}
	ref, _, _ = strings.Cut(ref, "@")
	if first, rest, ok := strings.Cut(ref, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		ref = rest
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref
}

// sourcePathHint returns a "did you mean" hint when path, read as a kit
// source, is an OCI layout directory or an archive; otherwise "".
func sourcePathHint(path string) string {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return ""
	case isLayoutDir(path):
		return "hint: " + path + " is an OCI layout; did you mean " + artifact.LayoutPrefix + path + "?"
	case fi.Mode().IsRegular() && strings.HasSuffix(path, ".tar"):
		return "hint: did you mean " + artifact.ArchivePrefix + path + "? (a kit image archive)"
	}
	return ""
}

// imageAsSourceHint returns a hint when path, given to a command that
// reads kit sources only (validate, lint), names a kit image: an oci: or
// oci-archive: reference, an OCI layout directory or a .tar file;
// otherwise "".
func imageAsSourceHint(path string) string {
	ref := ""
	switch fi, err := os.Stat(path); {
	case strings.HasPrefix(path, artifact.LayoutPrefix) || strings.HasPrefix(path, artifact.ArchivePrefix):
		ref = path
	case err != nil:
	case isLayoutDir(path):
		ref = artifact.LayoutPrefix + path
	case fi.Mode().IsRegular() && strings.HasSuffix(path, ".tar"):
		ref = artifact.ArchivePrefix + path
	}
	if ref == "" {
		return ""
	}
	return "hint: " + path + " names a kit image, and validate and lint read kit sources; judge a kit image with 'kitsmith check " + ref + "'"
}

// isLayoutDir reports whether dir holds an oci-layout file.
func isLayoutDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "oci-layout"))
	return err == nil && fi.Mode().IsRegular()
}

// isKitSourceFile reports whether path is named like a kit descriptor or
// Dockerfile.
func isKitSourceFile(path string) bool {
	base := filepath.Base(path)
	return strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") ||
		strings.HasSuffix(base, ".dockerfile") || strings.HasPrefix(base, "Dockerfile")
}

// checkRegularFile refuses, by its metadata and before it is opened, a
// file to read that is not a regular file: opening a FIFO blocks until
// something writes to it.
func checkRegularFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); kitsmith reads only regular files", path, fi.Mode().Type())
	}
	return nil
}
