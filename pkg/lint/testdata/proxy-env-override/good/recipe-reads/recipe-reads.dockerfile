FROM ubuntu:24.04@sha256:b359f1067efa76f37863778f7b6d0e8d911e3ee8efa807ad01fbf5dc1ef9006b
# A build argument is not the sandbox's environment.
ARG HTTP_PROXY
RUN echo "building through $HTTP_PROXY"
ENV HTTP_PROXY_NOTE="the sandbox sets HTTP_PROXY"
