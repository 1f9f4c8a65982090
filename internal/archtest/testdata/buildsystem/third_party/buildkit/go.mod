module github.com/moby/buildkit

go 1.26
