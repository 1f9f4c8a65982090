FROM scratch
ENV NO_PROXY=localhost,127.0.0.1 \
    no_proxy="localhost,127.0.0.0/8,[::1],.localhost"
