package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kitsmith/kitsmith/pkg/build"
)

// checkMetadataDest reports, before anything is built or written, a
// --metadata-file path that cannot be written: a missing parent directory,
// a directory or another non-regular file in its place.
func checkMetadataDest(file string) error { return checkFileDest("--metadata-file", file) }

// checkFileDest refuses, before any work, a file destination named by flag
// that cannot be written in place: a parent that is not a directory, or an
// existing path that is not a regular file. An empty file is no
// destination.
func checkFileDest(flag, file string) error {
	if file == "" {
		return nil
	}
	dir := filepath.Dir(file)
	if fi, err := os.Stat(dir); err != nil {
		return usageErrorf("%s %s: %v", flag, file, err)
	} else if !fi.IsDir() {
		return usageErrorf("%s %s: %s is not a directory", flag, file, dir)
	}
	fi, err := os.Lstat(file)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return usageErrorf("%s %s: %v", flag, file, err)
	case !fi.Mode().IsRegular():
		return usageErrorf("%s %s: exists and is not a regular file (%s)", flag, file, fi.Mode().Type())
	}
	return nil
}

// writeMetadataFile writes the metadata JSON through a temporary file
// renamed into place.
func writeMetadataFile(file string, m build.Metadata) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(file, append(b, '\n'), 0o644)
}

// writeFileAtomic writes b to file through a temporary file beside it,
// given mode and renamed into place; on failure the temporary file is
// removed and file is left as it was.
func writeFileAtomic(file string, b []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
