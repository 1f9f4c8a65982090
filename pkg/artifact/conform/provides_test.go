package conform

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

func TestPackageVersion(t *testing.T) {
	tests := map[string]string{
		"1:2.5.2-3+dhi1":    "2.5.2",
		"1.07.1-3":          "1.07.1",
		"9.20.26-1~deb13u1": "9.20.26",
		"5.2.15-2+b2":       "5.2.15",
		"2.36.1-8+deb12u1":  "2.36.1",
		"1.36.1-r15":        "1.36.1",
		"3.0.13-r0":         "3.0.13",
		"1.2.3.4.5-1":       "1.2.3",
		"2.0~rc1-1":         "",
		"1.0~beta":          "",
		"20230311":          "20230311",
		"0.4-1":             "0.4",
		"2:8.2.3995-1":      "8.2.3995",
		"abc-1":             "",
		"":                  "",
		" 7 ":               "7",
		"1.2_rc1-r0":        "1.2",
		"1.2.3-1-1":         "1.2.3",
	}
	for in, want := range tests {
		if got := PackageVersion(in); got != want {
			t.Errorf("PackageVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

const dpkgStatus = `Package: bash
Status: install ok installed
Priority: required
Version: 5.2.15-2+b2
Description: GNU Bourne Again SHell
 Bash is an sh-compatible command language interpreter.
 .
 Continuation: not a field

Package: removed-tool
Status: deinstall ok config-files
Version: 1.0-1

Package: libc6
Status: install ok installed
Architecture: amd64
Version: 2.36-9+deb12u4

Package: libc6
Status: install ok installed
Architecture: i386
Version: 2.36-9+deb12u4

Package: libfoo
Status: install ok installed
Architecture: amd64
Version: 1.0-1

Package: libfoo
Status: install ok installed
Architecture: i386
Version: 1.1-1

Package: beta
Status: install ok installed
Version: 2.0~rc1-1

Package: Upper_Case
Status: install ok installed
Version: 1.0

Package: libstdc++6
Status: hold ok installed
Version: 12.2.0-14
`

const apkInstalled = "C:Q1abc=\nP:musl\nV:1.2.4-r2\nA:x86_64\n\nC:Q1def=\nP:busybox\nV:1.36.1-r15\n"

func TestDerivedProvides(t *testing.T) {
	tests := []struct {
		name      string
		dpkg, apk string
		want      []string
	}{
		{
			name: "dpkg: installed only, multiarch agreement, prerelease dropped",
			dpkg: dpkgStatus,
			want: []string{"deb/bash@5.2.15", "deb/libc6@2.36", "deb/libstdc++6@12.2.0"},
		},
		{
			name: "apk",
			apk:  apkInstalled,
			want: []string{"apk/busybox@1.36.1", "apk/musl@1.2.4"},
		},
		{
			name: "both, CRLF and no trailing newline",
			dpkg: strings.ReplaceAll("Package: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13.dfsg-1", "\n", "\r\n"),
			apk:  apkInstalled,
			want: []string{"apk/busybox@1.36.1", "apk/musl@1.2.4", "deb/zlib1g@1.2.13"},
		},
		{name: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dpkg, apk []byte
			if tt.dpkg != "" {
				dpkg = []byte(tt.dpkg)
			}
			if tt.apk != "" {
				apk = []byte(tt.apk)
			}
			got := DerivedProvides(dpkg, apk)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DerivedProvides() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadDpkgStatusLineTooLong(t *testing.T) {
	long := "Package: x\nStatus: install ok installed\nDescription: " + strings.Repeat("a", maxDatabaseLine+1) + "\n"
	if _, err := ReadDpkgStatus(strings.NewReader(long)); err == nil {
		t.Error("ReadDpkgStatus() accepted a line over the bound")
	}
}

func TestIntersectProvides(t *testing.T) {
	amd64 := []string{"deb/bash@5.2.15", "deb/libc6@2.36", "deb/only-amd64@1", "deb/moves@1.0"}
	arm64 := []string{"deb/bash@5.2.15", "deb/libc6@2.36", "deb/moves@1.1", "deb/bash@5.2.15"}
	tests := []struct {
		name string
		in   [][]string
		want []string
	}{
		{name: "two platforms", in: [][]string{amd64, arm64}, want: []string{"deb/bash@5.2.15", "deb/libc6@2.36"}},
		{name: "one platform", in: [][]string{amd64}, want: []string{"deb/bash@5.2.15", "deb/libc6@2.36", "deb/moves@1.0", "deb/only-amd64@1"}},
		{name: "a platform with nothing", in: [][]string{amd64, nil}},
		{name: "no platforms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, IntersectProvides(tt.in...)); diff != "" {
				t.Errorf("IntersectProvides() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDatabasePaths: the layer reader captures the package databases at
// the paths the provides check reads them from.
func TestDatabasePaths(t *testing.T) {
	if DpkgStatusPath != kitimage.DpkgStatusPath || ApkInstalledPath != kitimage.ApkInstalledPath {
		t.Errorf("database paths %q, %q; the layer reader captures %q, %q", DpkgStatusPath, ApkInstalledPath, kitimage.DpkgStatusPath, kitimage.ApkInstalledPath)
	}
}
