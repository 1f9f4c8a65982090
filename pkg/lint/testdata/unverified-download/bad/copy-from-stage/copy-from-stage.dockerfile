FROM scratch AS scripts
COPY install.sh /src/install.sh
COPY tools/ /src/tools/

FROM scratch AS content
COPY --from=scripts /src/ /opt/kit/
COPY --from=example.org/other:1 /opt/other.sh /opt/other.sh
