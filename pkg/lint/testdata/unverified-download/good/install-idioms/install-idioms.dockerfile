FROM example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
RUN set -eu; \
    curl -fsSLo /tmp/tool.tgz https://downloads.example.org/tool.tgz; \
    echo "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  /tmp/tool.tgz" | sha256sum -c -; \
    tar -xzf /tmp/tool.tgz -C /usr/local/bin tool
RUN set -eu; \
    wget -q -O /tmp/install.sh https://get.example.org/install.sh; \
    cosign verify-blob --bundle /tmp/install.sh.bundle --certificate-identity-regexp '.*' --certificate-oidc-issuer https://token.actions.githubusercontent.com /tmp/install.sh; \
    sh /tmp/install.sh
RUN bash -c "curl -fsSL https://downloads.example.org/data.json -o /tmp/data.json && jq . /tmp/data.json"
