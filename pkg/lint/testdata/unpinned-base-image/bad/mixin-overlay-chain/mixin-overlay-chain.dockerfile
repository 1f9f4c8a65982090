# want: unpinned-base-image
FROM example.org/toolchain:1.23 AS build
RUN echo built >/out
# want: unpinned-base-image
FROM example.org/base:3 AS base
FROM base
COPY --from=build /out /opt/tool/out
