# Written by kitsmith migrate from spec.yaml.
# files/home of the v2 kit, which v2 copied to /home/agent at create. It is staged
# with the agent's ownership and copied under a root-owned /home: a chown'd COPY
# straight to /home/agent/ would create /home owned by the agent.
FROM scratch AS home
COPY --chown=1000:1000 files/home/ /agent/

# A mixin's recipe is an overlay: it lands on any base.
FROM scratch
COPY --from=home / /home/
