# Written by kitsmith migrate from spec.yaml.
FROM example.org/templates/docker:1
ENTRYPOINT ["bash"]
