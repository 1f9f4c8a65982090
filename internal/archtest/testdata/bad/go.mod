module github.com/kitsmith/kitsmith

go 1.26

require (
	github.com/sigstore/sigstore-go v1.0.0
	github.com/spf13/cobra v1.0.0
)

replace (
	github.com/sigstore/sigstore-go => ./third_party/sigstore
	github.com/spf13/cobra => ./third_party/cobra
)
