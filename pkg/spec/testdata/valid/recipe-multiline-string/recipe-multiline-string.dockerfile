FROM scratch AS content
# The same file, written so that BuildKit sees one instruction.
RUN printf 'PATH=/opt/tool/bin:$PATH\n' > /etc/profile.d/tool.sh && \
    printf 'export FOO=1\n' >> /etc/profile.d/tool.sh
RUN <<EOF2
cat > /etc/profile.d/other.sh <<'SH'
export BAR=1
SH
EOF2
