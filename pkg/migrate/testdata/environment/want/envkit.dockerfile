# Written by kitsmith migrate from spec.yaml.
FROM example.org/templates/shell:1
# marks the sandbox for the agent
ENV IS_SANDBOX="1"
ENV GREETING="say \"hi\" for \$5"
ENV SERVICE_URL="http://host.docker.internal:8080"
ENTRYPOINT ["bash"]
