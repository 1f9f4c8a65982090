# syntax=docker/dockerfile:1
FROM example.org/templates/shell:1
RUN echo built > /etc/built
COPY --chmod=0755 scripts/start.sh /usr/local/bin/start
COPY --from=example.org/tools:1 /bin/tool /usr/local/bin/tool
CMD ["built", "--serve"]

# Added by kitsmith migrate from spec.yaml.
# kitsmith:migrate dockerfile-cmd (Dockerfile:6): the CMD above now trails the ENTRYPOINT below; remove it unless it holds default arguments
ENV BUILT="yes"
ENTRYPOINT ["built","--serve"]
