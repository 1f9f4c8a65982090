FROM example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
RUN set -eu; \
    # want: unverified-download
    curl -fsSLo /tmp/tool.tgz https://downloads.example.org/tool.tgz; \
    tar -xzf /tmp/tool.tgz -C /usr/local/bin tool
RUN set -eu; \
    # want: unverified-download
    wget -q -O /tmp/install.sh https://get.example.org/install.sh; \
    sh /tmp/install.sh
# want: unverified-download
RUN bash -c "curl -fsSL https://get.example.org/install.sh | sh -s -- --yes"
