package shim

import (
	"net"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

func TestAnswer(t *testing.T) {
	n := &names{byName: map[string]uint32{}, byAddr: map[uint32]string{}}
	query := func(name string, typ dnsmessage.Type) dnsmessage.Message {
		t.Helper()
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
		b.StartQuestions()
		b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET})
		q, _ := b.Finish()
		out, ok := answer(q, n)
		if !ok {
			t.Fatalf("no answer for %s", name)
		}
		var m dnsmessage.Message
		if err := m.Unpack(out); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := query("API.example.org.", dnsmessage.TypeA)
	if a.Header.ID != 7 || len(a.Answers) != 1 {
		t.Fatalf("answer %+v", a)
	}
	ip := net.IP(a.Answers[0].Body.(*dnsmessage.AResource).A[:])
	if !ip.Equal(net.IPv4(127, 1, 0, 1)) {
		t.Errorf("address %s", ip)
	}
	if name, ok := n.name(ip); !ok || name != "api.example.org" {
		t.Errorf("name of %s = %q", ip, name)
	}
	if again := query("api.example.org.", dnsmessage.TypeA); !net.IP(again.Answers[0].Body.(*dnsmessage.AResource).A[:]).Equal(ip) {
		t.Error("a second lookup gave another address")
	}
	if aaaa := query("api.example.org.", dnsmessage.TypeAAAA); len(aaaa.Answers) != 0 {
		t.Errorf("AAAA answered %+v", aaaa.Answers)
	}
	if _, ok := n.name(net.IPv4(127, 2, 3, 4)); ok {
		t.Error("an address never handed out has a name")
	}
}
