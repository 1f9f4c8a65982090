# Written by kitsmith migrate from spec.yaml.
FROM example.org/templates/agent@sha256:0000000000000000000000000000000000000000000000000000000000000000
ENTRYPOINT ["agent","--yolo"]
CMD ["-p"]
