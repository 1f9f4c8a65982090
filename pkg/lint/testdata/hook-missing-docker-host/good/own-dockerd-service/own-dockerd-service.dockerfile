FROM scratch
