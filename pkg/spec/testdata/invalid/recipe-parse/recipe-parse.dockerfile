FROM scratch AS content
RUN printf "PATH=/opt/tool/bin:$PATH
export FOO=1
" > /etc/profile.d/tool.sh
