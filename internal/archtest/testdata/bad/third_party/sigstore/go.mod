module github.com/sigstore/sigstore-go

go 1.26

require github.com/spf13/cobra v1.0.0
