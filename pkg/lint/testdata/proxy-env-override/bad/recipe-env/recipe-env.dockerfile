FROM ubuntu:24.04@sha256:b359f1067efa76f37863778f7b6d0e8d911e3ee8efa807ad01fbf5dc1ef9006b
# want: proxy-env-override
ENV HTTP_PROXY=http://proxy.corp:3128
ENV LANG=C.UTF-8 \
# want: proxy-env-override
    no_proxy=localhost,host.docker.internal
# want: proxy-env-override
ENV ALL_PROXY socks5://proxy.corp:1080
