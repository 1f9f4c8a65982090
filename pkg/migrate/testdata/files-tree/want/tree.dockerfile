# syntax=docker/dockerfile:1
# Written by kitsmith migrate from spec.yaml.
# A mixin's recipe is an overlay: it lands on any base.
FROM scratch
# files/home of the v2 kit, which v2 copied to /home/agent at create.
COPY --chown=1000:1000 files/home/ /home/agent/
