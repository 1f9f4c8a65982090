# Written by kitsmith migrate from spec.yaml.
FROM example.org/templates/agent:1
ENTRYPOINT ["runner","--yolo"]
