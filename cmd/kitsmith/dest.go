package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// localRefHint returns a "did you mean" hint when ref, read as a registry
// reference, would go to the default registry (no host in it) but names a
// local OCI layout directory or archive file; otherwise "".
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
	case fi.IsDir():
		return "hint: did you mean " + artifact.LayoutPrefix + ref + "? (a local OCI layout directory; write docker.io/" + ref + " for Docker Hub)"
	case fi.Mode().IsRegular():
		return "hint: did you mean " + artifact.ArchivePrefix + ref + "? (a local OCI archive; write docker.io/" + ref + " for Docker Hub)"
	}
	return ""
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
