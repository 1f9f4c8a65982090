# kitsmith:ignore unpinned-base-image rebuilt nightly against the moving tag on purpose
FROM ubuntu:24.04
