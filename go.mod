module github.com/kitsmith/kitsmith

go 1.26.8

require (
	github.com/distribution/reference v0.6.0 // indirect
	github.com/github/go-spdx/v2 v2.8.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/go-containerregistry v0.22.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/moby/buildkit v0.34.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	github.com/owenrumney/go-sarif/v2 v2.3.3 // indirect
	github.com/owenrumney/go-sarif/v3 v3.3.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
	oras.land/oras-go/v2 v2.7.0 // indirect
)
