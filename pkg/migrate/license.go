package migrate

import (
	"strings"
)

// licenseFiles are the names a kit's license text goes by.
var licenseFiles = []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"}

// licenseMarks identify a license text by phrases it must all contain;
// the first match wins, so more specific texts come first.
var licenseMarks = []struct {
	id    string
	marks []string
}{
	{"Apache-2.0", []string{"apache license", "version 2.0"}},
	{"MPL-2.0", []string{"mozilla public license", "version 2.0"}},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "neither the name"}},
	{"BSD-2-Clause", []string{"redistribution and use in source and binary forms"}},
	{"ISC", []string{"permission to use, copy, modify, and/or distribute this software for any purpose"}},
	{"MIT", []string{"permission is hereby granted, free of charge", "the above copyright notice and this permission notice"}},
	{"Unlicense", []string{"this is free and unencumbered software released into the public domain"}},
}

// license returns the SPDX id the kit's LICENSE file says, and the file,
// or "" when there is none or the text is not one it knows for sure. GPL
// texts are not guessed: the text does not say "only" or "or later".
func (m *migrator) license() (id, file string) {
	for _, name := range licenseFiles {
		b, err := m.kfs.readOptional(name)
		if err != nil {
			m.fail(err)
			return "", ""
		}
		if b == nil {
			continue
		}
		text := strings.Join(strings.Fields(strings.ToLower(string(b))), " ")
		for _, l := range licenseMarks {
			all := true
			for _, mk := range l.marks {
				all = all && strings.Contains(text, mk)
			}
			if all {
				return l.id, name
			}
		}
		m.note(nil, "", "license-unknown", name+" does not read as a license kitsmith recognises: add licenses: (SPDX ids) by hand")
		return "", ""
	}
	return "", ""
}
