FROM example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
ADD --checksum=sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 https://downloads.example.org/tool-linux-amd64 /usr/local/bin/tool
RUN chmod 0755 /usr/local/bin/tool
RUN set -eux; \
    curl -fsSLo /tmp/other https://downloads.example.org/other; \
    curl -fsSLo /tmp/other.sha256 https://downloads.example.org/other.sha256; \
    (cd /tmp && sha256sum -c other.sha256); \
    install -m 0755 /tmp/other /usr/local/bin/other
RUN <<'EOF2'
set -eu
curl -fsSL -o /tmp/tool.tgz https://downloads.example.org/tool.tgz
echo "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  /tmp/tool.tgz" | sha256sum -c -
tar -xzf /tmp/tool.tgz -C /usr/local/bin tool
chmod 0755 /usr/local/bin/tool
EOF2
# Unpacked and run, but checked first; and a system tool run after an
# unpacked download (here: its checksum is verified) is no run of it.
RUN set -eu; \
    curl -fsSL -o /tmp/ed.tgz https://downloads.example.org/ed.tgz; \
    echo "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  /tmp/ed.tgz" | sha256sum -c -; \
    tar -C /opt -xzf /tmp/ed.tgz; \
    /opt/ed/bin/ed --version
RUN set -eu; \
    curl -fsSL -o /tmp/data.tgz https://downloads.example.org/data.tgz; \
    tar -C /srv -xzf /tmp/data.tgz; \
    /usr/bin/find /srv -type f
