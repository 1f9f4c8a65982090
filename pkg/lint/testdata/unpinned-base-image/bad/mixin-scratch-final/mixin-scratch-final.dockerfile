# want: unpinned-base-image
FROM example.org/toolchain:1.23 AS build
RUN echo built >/out
FROM scratch
COPY --from=build /out /opt/tool/out
