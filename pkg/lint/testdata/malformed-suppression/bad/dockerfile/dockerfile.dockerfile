# want: malformed-suppression
# kitsmith:ignore unpinned-base-image
FROM ubuntu:24.04
