FROM scratch
COPY busybox /bin/busybox
RUN ["/bin/busybox", "--install", "-s", "/bin"]
RUN mkdir -p /root /tmp /home/agent && chmod 1777 /tmp && \
    printf 'root:x:0:0:root:/root:/bin/sh\nagent:x:1000:1000:agent:/home/agent:/bin/sh\n' > /etc/passwd && \
    printf 'root:x:0:\nagent:x:1000:\n' > /etc/group && chown 1000:1000 /home/agent
ENV PATH=/bin
ENTRYPOINT ["/bin/sh"]
