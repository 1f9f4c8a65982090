# syntax=docker/dockerfile:1
FROM example.org/templates/shell:1
RUN echo built > /etc/built
CMD ["built", "--serve"]

# Added by kitsmith migrate from spec.yaml.
# kitsmith:migrate dockerfile-cmd (Dockerfile:4): the CMD above now trails the ENTRYPOINT below; remove it unless it holds default arguments
ENV BUILT="yes"
ENTRYPOINT ["built","--serve"]
