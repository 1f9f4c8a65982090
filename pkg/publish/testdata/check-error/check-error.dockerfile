FROM scratch
COPY notes.txt /home/agent/notes.txt
