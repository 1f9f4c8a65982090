# Written by kitsmith migrate from spec.yaml.
FROM example.org/templates/shell:1
ENTRYPOINT ["bash","-l"]
