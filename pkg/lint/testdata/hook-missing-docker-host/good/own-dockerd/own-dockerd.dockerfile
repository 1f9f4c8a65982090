FROM scratch
CMD ["/bin/sh"]
