package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"

	"github.com/kitsmith/kitsmith/pkg/build"
)

// checkOutputDest refuses, before anything is built or written, an --output
// destination kitsmith would have to destroy or cannot write: an
// oci-archive: path that is not a regular file (a directory, device, FIFO,
// socket or symbolic link), an oci: path that is not a directory, or a
// non-empty directory that is not an OCI layout; and a destination under a
// path that is not a directory. Missing parent directories are created by
// the build.
func checkOutputDest(out build.Output) error {
	dest := out.Dest
	for parent := filepath.Dir(dest); ; parent = filepath.Dir(parent) {
		fi, err := os.Stat(parent)
		if err == nil && !fi.IsDir() {
			return usageErrorf("--output %s: %s is not a directory", out, parent)
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.Dir(parent) == parent {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return usageErrorf("--output %s: %v", out, err)
			}
			break
		}
	}
	fi, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return usageErrorf("--output %s: %v", out, err)
	}
	switch out.Type {
	case build.OutputOCIArchive:
		if !fi.Mode().IsRegular() {
			return usageErrorf("--output %s: %s exists and is not a regular file (%s); remove it or name another path", out, dest, fi.Mode().Type())
		}
	case build.OutputOCI:
		if !fi.IsDir() {
			return usageErrorf("--output %s: %s exists and is not a directory (%s)", out, dest, fi.Mode().Type())
		}
		if _, err := os.Lstat(filepath.Join(dest, "oci-layout")); err == nil {
			return nil
		}
		entries, err := os.ReadDir(dest)
		if err != nil {
			return usageErrorf("--output %s: %v", out, err)
		}
		if len(entries) > 0 {
			return usageErrorf("--output %s: %s is a non-empty directory without an oci-layout file; kitsmith writes only into an empty directory or an OCI layout", out, dest)
		}
	}
	return nil
}

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
