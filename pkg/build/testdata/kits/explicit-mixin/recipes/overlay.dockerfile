FROM scratch AS base
COPY files/base.txt /opt/base/base.txt
ENV BASE_ONLY=1

FROM base
COPY files/tool.sh /opt/tool/bin/tool
ENV PATH=/opt/tool/bin:$PATH
LABEL io.kitsmith.test.kit=explicit-mixin
