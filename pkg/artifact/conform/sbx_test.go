package conform

import (
	"testing"
)

func TestLookupUser(t *testing.T) {
	passwd := "# comment:x:5:5::/home/c:/bin/sh\nroot:x:0:0:root:/root:/bin/bash\nagent:x:1000:1000::/home/agent:/bin/bash\nshort:x:7\nnohome:x:1001:1001::relative:/bin/sh\n"
	group := "root:x:0:\nstaff:x:50:agent\n"
	tests := []struct {
		user string
		want account
		ok   bool
	}{
		{user: "agent", want: account{name: "agent", home: "/home/agent", uid: 1000, gid: 1000}, ok: true},
		{user: "1000", want: account{name: "agent", home: "/home/agent", uid: 1000, gid: 1000}, ok: true},
		{user: "001000", want: account{name: "agent", home: "/home/agent", uid: 1000, gid: 1000}, ok: true},
		{user: "agent:staff", want: account{name: "agent", home: "/home/agent", uid: 1000, gid: 50}, ok: true},
		{user: "agent:99", want: account{name: "agent", home: "/home/agent", uid: 1000, gid: 99}, ok: true},
		{user: "agent:nogroup"},
		{user: "root", want: account{name: "root", home: "/root"}, ok: true},
		{user: "nohome"},
		{user: "short"},
		{user: "# comment"},
		{user: "4294967295"},
		{user: " agent"},
	}
	for _, tt := range tests {
		got, ok := lookupUser(passwd, group, tt.user)
		if ok != tt.ok || got != tt.want {
			t.Errorf("lookupUser(%q) = %+v, %v; want %+v, %v", tt.user, got, ok, tt.want, tt.ok)
		}
	}
}
