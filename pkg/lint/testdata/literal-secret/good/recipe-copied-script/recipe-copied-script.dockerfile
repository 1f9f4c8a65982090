FROM example.org/base:1@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
COPY login.sh /opt/fixture/login.sh
