# shellcheck shell=bash
# Helpers shared by scripts/services.sh and its parts (sourced, not run).

log() { printf '[services] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
# elapsed START -> seconds with one decimal, using only bash arithmetic
elapsed() {
  local s=${1/./} e
  e=$(now); e=${e/./}
  local d=$(((e - s) / 100000))
  printf '%d.%ds' $((d / 10)) $((d % 10))
}

# Debian keeps runc in /usr/sbin; make sure sbin dirs are searched.
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# ---------------------------------------------------------------- processes
#
# A started process is recorded as DIR/NAME.pid (its pid) and DIR/NAME.exe
# (the absolute path of the binary). It counts as running only while that
# pid is alive, not a zombie, and runs that binary, so a recycled pid is
# never mistaken for ours. Pid files without an .exe file (written by older
# versions of this script) match on the binary's base name.

# pid_alive PID EXE
pid_alive() {
  local pid=$1 want=$2 exe st
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null || true)
  [[ $st == Z ]] && return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
  exe=${exe% (deleted)}
  if [[ $want == */* ]]; then
    [[ $exe == "$want" ]]
  else
    [[ ${exe##*/} == "$want" ]]
  fi
}

# running_pid DIR NAME -> prints the pid if NAME runs
running_pid() {
  local dir=$1 name=$2 pid exe
  [[ -f $dir/$name.pid ]] || return 1
  pid=$(cat "$dir/$name.pid" 2>/dev/null || true)
  exe=$(cat "$dir/$name.exe" 2>/dev/null || true)
  pid_alive "$pid" "${exe:-$name}" || return 1
  printf '%s' "$pid"
}

# spawn DIR NAME EXE ARGS... : start EXE in the background, detached from
# our stdin/stdout and from the lock on fd 9; log to DIR/NAME.log.
# Environment for the process goes in the SPAWN_ENV array (NAME=VALUE...).
spawn() {
  local dir=$1 name=$2 exe=$3 pid
  shift 3
  [[ -f $dir/$name.log ]] && mv -f "$dir/$name.log" "$dir/$name.log.prev"
  env "${SPAWN_ENV[@]}" nohup "$exe" "$@" </dev/null >"$dir/$name.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$dir/$name.pid"
  echo "$exe" >"$dir/$name.exe"
  log "$name started (pid $pid, log $dir/$name.log)"
}
SPAWN_ENV=()

# stop_one DIR NAME [TIMEOUT]: TERM, wait up to TIMEOUT s (default 5),
# then KILL; return only once the process has exited.
stop_one() {
  local dir=$1 name=$2 timeout=${3:-5} pid exe i st
  [[ -f $dir/$name.pid ]] || return 0
  pid=$(cat "$dir/$name.pid" 2>/dev/null || true)
  exe=$(cat "$dir/$name.exe" 2>/dev/null || true)
  exe=${exe:-$name}
  if pid_alive "$pid" "$exe"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < timeout * 10; i++)); do
      pid_alive "$pid" "$exe" || break
      sleep 0.1
    done
    if pid_alive "$pid" "$exe"; then
      log "$name (pid $pid) still running after ${timeout}s; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    # The exe link goes before the sockets close: wait for the pid itself.
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null || true)
      [[ $st == Z ]] && break
      sleep 0.1
    done
    log "$name (pid $pid) stopped"
  fi
  rm -f "$dir/$name.pid" "$dir/$name.exe"
}

# ---------------------------------------------------------------- probes

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# http_get PORT PATH -> the response body on stdout when the status is 200
# (bash /dev/tcp, HTTP/1.0; no curl needed). Bounded to 3 s per read.
http_get() {
  local port=$1 path=$2
  (
    exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$path" "$port" >&3
    IFS= read -r -t 3 line <&3 || exit 1
    [[ $line =~ ^HTTP/1\.[01]\ 200 ]] || exit 1
    while IFS= read -r -t 3 line <&3; do
      [[ $line == $'\r' || -z $line ]] && break
    done
    timeout 3 cat <&3
  ) 2>/dev/null
}

probe_http() { http_get "$1" "$2" >/dev/null; }
