ARG BASE
FROM ${BASE}
COPY files/extra.txt /opt/extra/extra.txt
ENV PATH=/opt/extra/bin:$PATH
EXPOSE 8080
