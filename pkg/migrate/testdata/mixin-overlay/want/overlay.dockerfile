# Written by kitsmith migrate from spec.yaml.
# A mixin's recipe is an overlay: it lands on any base.
FROM scratch
ENV TOOL_HOME="/opt/tool"
