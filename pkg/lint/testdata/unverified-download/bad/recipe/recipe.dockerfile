FROM scratch AS base
FROM example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
# want: unverified-download
RUN curl -fsSL https://get.example.org/install.sh \
      | bash
# want: unverified-download
ADD https://downloads.example.org/tool-linux-amd64 /usr/local/bin/tool
RUN chmod 0755 /usr/local/bin/tool
RUN set -eux; \
    apt-get update; \
    # want: unverified-download
    wget -q https://downloads.example.org/other -O /usr/local/bin/other; \
    chmod a+x /usr/local/bin/other
RUN <<EOF2
set -eux
curl -fsSL https://get.example.org/install.sh | sh -s -- --version 1.2.3  # want: unverified-download
EOF2
RUN set -eu; \
    # want: unverified-download
    curl -fsSL -o /tmp/tool.tgz https://downloads.example.org/tool.tgz; \
    tar -xzf /tmp/tool.tgz -C /usr/local/bin tool; \
    chmod 0755 /usr/local/bin/tool
# An archive keeps its modes: the unpacked program runs without a chmod.
RUN set -eu; \
    # want: unverified-download
    curl -fsSL -o /tmp/ed.tgz https://downloads.example.org/ed.tgz; \
    tar -C /opt -xzf /tmp/ed.tgz; \
    /opt/ed/bin/ed --version
