FROM scratch
COPY busybox /bin/busybox
RUN ["/bin/busybox", "--install", "-s", "/bin"]
RUN mkdir -p /etc/kit && echo "built by RUN" > /etc/kit/greeting
ENTRYPOINT ["/bin/sh"]
