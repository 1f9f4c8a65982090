FROM scratch AS content
COPY setup.sh /home/agent/.local/bin/setup.sh
