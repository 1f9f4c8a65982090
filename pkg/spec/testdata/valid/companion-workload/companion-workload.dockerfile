FROM debian:bookworm-slim@sha256:2bc5c236e9b262645a323e9088dfa3bb1ecb16cc75811daf40a23a824d665be9
ARG NOTES_VERSION
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bash \
 && rm -rf /var/lib/apt/lists/*
RUN useradd -m -u 1000 agent
USER agent
ENTRYPOINT ["notes"]
