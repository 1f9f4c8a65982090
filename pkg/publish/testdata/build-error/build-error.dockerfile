FROM scratch
COPY missing-file /opt/missing-file
