FROM alpine:3.20@sha256:beefdbd8a1da6d2915566fde36db9db0b524eb737fc57cd1367effd16dc0d06d
# Copied from the grafana kit.
# want: proxy-env-override
ENV NO_PROXY=host.docker.internal,localhost
