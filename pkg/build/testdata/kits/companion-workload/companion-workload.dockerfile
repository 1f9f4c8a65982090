FROM scratch
COPY bin/hello /usr/local/bin/hello
COPY dpkg-status /var/lib/dpkg/status
ENV KIT_WORKLOAD=companion
ENTRYPOINT ["/usr/local/bin/hello"]
