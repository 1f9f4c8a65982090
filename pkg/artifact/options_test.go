package artifact

import (
	"testing"

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
		o := makeOptions(tt.opts)
		r, err := name.ParseReference(tt.host+"/kits/tool:1", o.nameOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Context().Registry.Scheme(); got != tt.scheme {
			t.Errorf("%s (insecure %v): scheme %s, want %s", tt.host, tt.insecure, got, tt.scheme)
		}
		tr := o.transport()
		if skips := tr != nil && tr.TLSClientConfig.InsecureSkipVerify; skips != tt.insecure {
			t.Errorf("%s: TLS verification skipped = %v, want %v", tt.host, skips, tt.insecure)
		}
	}
}
