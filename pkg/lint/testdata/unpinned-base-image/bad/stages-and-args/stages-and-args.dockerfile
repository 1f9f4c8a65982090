ARG BASE=alpine:3.20
# want: unpinned-base-image
FROM --platform=$BUILDPLATFORM golang:1.23 AS build
RUN go version
# want: unpinned-base-image
FROM ${BASE}
COPY --from=build /usr/local/go/bin/go /usr/local/bin/go
