package artifact

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

func TestInsecureRegistryOptions(t *testing.T) {
	tests := []struct {
		host     string
		opts     []Option
		scheme   string
		insecure bool
	}{
		{host: "127.0.0.1:5000", scheme: "http"},
		{host: "localhost:5000", scheme: "http"},
		{host: "[::1]:5000", scheme: "http"},
		{host: "registry.example:5000", scheme: "https"},
		{host: "registry.example:5000", opts: []Option{WithInsecureRegistry()}, scheme: "http", insecure: true},
	}
	for _, tt := range tests {
		o, err := makeOptions(tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := name.ParseReference(tt.host+"/kits/tool:1", o.nameOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Context().Registry.Scheme(); got != tt.scheme {
			t.Errorf("%s (insecure %v): scheme %s, want %s", tt.host, tt.insecure, got, tt.scheme)
		}
		tr := o.defaultTransport()
		if skips := tr.TLSClientConfig != nil && tr.TLSClientConfig.InsecureSkipVerify; skips != tt.insecure {
			t.Errorf("%s: TLS verification skipped = %v, want %v", tt.host, skips, tt.insecure)
		}
	}
}

func TestMakeOptionsRejects(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"insecure and transport", []Option{WithInsecureRegistry(), WithTransport(http.DefaultTransport)}, "contradict"},
		{"nil transport", []Option{WithTransport(nil)}, "nil transport"},
		{"empty user agent", []Option{WithUserAgent("")}, "empty user agent"},
		{"zero timeout", []Option{WithTimeout(0)}, "not a positive duration"},
		{"negative timeout", []Option{WithTimeout(-time.Second)}, "not a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := makeOptions(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("makeOptions error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDefaultTransportTimeouts(t *testing.T) {
	o, err := makeOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := o.defaultTransport()
	if tr.ResponseHeaderTimeout <= 0 || tr.IdleConnTimeout <= 0 || tr.TLSHandshakeTimeout <= 0 || tr.DialContext == nil {
		t.Errorf("default transport lacks a timeout: header %s, idle %s, TLS %s", tr.ResponseHeaderTimeout, tr.IdleConnTimeout, tr.TLSHandshakeTimeout)
	}
	if _, ok := o.transport.(*guardTransport); !ok {
		t.Errorf("transport is %T, want the guarded transport", o.transport)
	}
}
