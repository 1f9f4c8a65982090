ARG BASE=alpine:3.20@sha256:beefdbd8a1da6d2915566fde36db9db0b524eb737fc57cd1367effd16dc0d06d
FROM golang:1.23@sha256:b359f1067efa76f37863778f7b6d0e8d911e3ee8efa807ad01fbf5dc1ef9006b AS build
RUN echo built >/out
FROM build AS test
RUN test -f /out
FROM scratch AS files
COPY --from=build /out /out
FROM ${BASE}
COPY --from=files /out /out
