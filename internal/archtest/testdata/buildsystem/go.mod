module github.com/kitsmith/kitsmith

go 1.26

require github.com/moby/buildkit v0.0.0

replace github.com/moby/buildkit => ./third_party/buildkit
