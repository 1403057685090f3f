#!/usr/bin/env bash
# A whole mars cluster on this machine, for `make run`: PostgreSQL and Redis in
# temporary directories on free loopback ports, one mars-supervisor serving
# the REST API and dashboard, and two mars-workers (contract command lines,
# shared/spec/cluster.md). Prints the dashboard URL and a curl example, then
# runs until Ctrl-C or SIGTERM, when it stops everything by pid and removes
# its temporary directories.
#
# Usage: scripts/run-cluster.sh [--check]
#   --check (or MARS_RUN_CHECK=1): start everything, run examples/seed-inner.sh
#            end to end against it, print its summary and stop; the exit
#            status is the example's.
# Environment:
#   MARS_WEB_PORT   REST API and dashboard port (default 7005; a free one when
#                   that is taken, or when it is 0)
#   MARS_WORKERS    number of workers (default 2)
#   MARS_WORKER_CPUS  --n-cpu of each worker (default: the cores divided
#                   among the workers, at least 1)
#   MARS_WORKER_PHY_MEM  --phy-mem of each worker (default: 80% of the host's
#                   MemTotal divided among the workers; a SIZE as the worker
#                   takes it: bytes, 512m, 2g, ...)
#   MARS_WORKER_CACHE_MEM  --cache-mem of each worker (default 40% of its
#                   --phy-mem, the worker's own default made explicit)
#   MARS_WORKER_RESTARTS  restarts allowed per worker within a minute
#                   (default 5); a worker that dies more often stops the
#                   cluster
#   MARS_MAX_BODY_SIZE  the REST API's largest request body (--max-body-size,
#                   default 256m): a larger file upload
#   MARS_BIN_DIR    where the programs are (default build/bin)
#   MARS_OUT        where --check saves the fetched tensors (default a
#                   temporary directory, removed at the end)
#   MARS_KEEP_LOGS=1  keep the services' logs (their directory is printed)
#   MARS_TOKEN      the API token every route but /health will require
#                   (default: a random one, written to the temporary
#                   directory and printed); MARS_OPEN=1: no token at all
#                   (docs/security.md)
#
# Each worker k spills under TMP/spill/worker-k (--spill-dirs), TMP being the
# script's temporary directory. A worker that dies while the cluster runs is
# started again with the same command line, and one line says so:
#   run-cluster: mars-worker K (pid N) died (killed by SIGKILL); restarted as pid M
# The supervisor, PostgreSQL or Redis dying stops the whole cluster (exit 1).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=${MARS_BIN_DIR:-$repo/build/bin}
check=${MARS_RUN_CHECK:-0}
for arg in "$@"; do
  case "$arg" in
  --check) check=1 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "run-cluster: unknown argument '$arg' (--check, --help)" >&2; exit 2 ;;
  esac
done
n_workers=${MARS_WORKERS:-2}

# Messages go to fd 3, a copy of stderr: the monitoring loop at the end sends
# its own stderr to /dev/null, which keeps bash's "PID Killed ..." notice
# of a dead worker out of the output (the loop says it in one line instead).
exec 3>&2
say() { printf 'run-cluster: %s\n' "$*" >&3; }
die() { say "$*"; exit 1; }

bin_dir=$(cd "$bin_dir" 2>/dev/null && pwd || echo "$bin_dir")
for p in mars-supervisor mars-worker; do
  [ -x "$bin_dir/$p" ] || die "$bin_dir/$p is missing: run \`make build\` first"
done
command -v curl >/dev/null || die "curl is missing: apt-get install curl (\`make run\` installs it)"
command -v redis-server >/dev/null || die "redis-server is missing: apt-get install redis-server"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)
[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] ||
  die "PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install postgresql"
case "$n_workers" in '' | *[!0-9]* | 0) die "MARS_WORKERS must be a positive number, not '$n_workers'" ;; esac

# Each worker's memory: --phy-mem, --cache-mem (checked before anything starts).
mem_total=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo 2>/dev/null || true) # kB
case "$mem_total" in '' | *[!0-9]*) mem_total=$((4 << 20)) ;; esac
mem_total=$((mem_total << 10))
# A SIZE (bytes, k/m/g/t suffix, or a percentage of MemTotal) in bytes, into
# the variable named $1; $3 names the setting in the message.
size_bytes() {
  local v=$2 n unit
  case "$v" in
  *%) n=${v%\%} unit=% ;;
  *[kKmMgGtT]) n=${v%?} unit=${v: -1} ;;
  *) n=$v unit="" ;;
  esac
  case "$n" in '' | *[!0-9]*) die "$3 must be a size such as 1073741824, 512m, 2g or 25%, not '$v'" ;; esac
  case "$unit" in
  %) n=$((mem_total * n / 100)) ;;
  k | K) n=$((n << 10)) ;;
  m | M) n=$((n << 20)) ;;
  g | G) n=$((n << 30)) ;;
  t | T) n=$((n << 40)) ;;
  esac
  [ "$n" -gt 0 ] || die "$3 must be more than 0, not '$v'"
  printf -v "$1" %s "$n"
}
phy_mem=$((mem_total * 8 / 10 / n_workers))
[ -n "${MARS_WORKER_PHY_MEM:-}" ] && size_bytes phy_mem "$MARS_WORKER_PHY_MEM" MARS_WORKER_PHY_MEM
cache_mem=$((phy_mem * 4 / 10))
[ -n "${MARS_WORKER_CACHE_MEM:-}" ] && size_bytes cache_mem "$MARS_WORKER_CACHE_MEM" MARS_WORKER_CACHE_MEM
[ "$cache_mem" -le "$phy_mem" ] || die "MARS_WORKER_CACHE_MEM ($cache_mem bytes) is more than --phy-mem ($phy_mem)"
max_restarts=${MARS_WORKER_RESTARTS:-5}
case "$max_restarts" in '' | *[!0-9]*) die "MARS_WORKER_RESTARTS must be a number, not '$max_restarts'" ;; esac

# ---- state and cleanup ------------------------------------------------------

base=$(mktemp -d /tmp/mars-cluster.XXXXXX)
chmod 755 "$base" # the postgres user must reach $base/pg
mkdir -p "$base/logs" "$base/redis"
pg_pid="" redis_pid="" sup_pid=""
pg_port="" redis_port="" sup_port="" wport="" # set by free_port
worker_pids=()
stopping=0

# Signals a pid and waits up to $3 seconds for it to go, then SIGKILL.
stop_pid() {
  local pid=$1 sig=$2 secs=$3 i
  [ -n "$pid" ] || return 0
  kill "-$sig" "$pid" 2>/dev/null || return 0
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  say "pid $pid did not stop within ${secs}s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  [ "$stopping" = 1 ] && return
  stopping=1
  trap '' INT TERM
  local pid
  for pid in "${worker_pids[@]}"; do stop_pid "$pid" TERM 10; done
  stop_pid "$sup_pid" TERM 10
  stop_pid "$redis_pid" TERM 10
  if [ -z "$pg_pid" ] && [ -s "$base/pg/data/postmaster.pid" ]; then
    pg_pid=$(head -1 "$base/pg/data/postmaster.pid")
  fi
  # SIGINT is PostgreSQL's fast shutdown; the pid is the postmaster's own.
  stop_pid "$pg_pid" INT 15
  wait 2>/dev/null || true
  if [ "${MARS_KEEP_LOGS:-0}" = 1 ]; then
    rm -rf "$base/pg/data" "$base/redis"
    say "logs kept in $base/logs (PostgreSQL's: $base/pg/postgres.log)"
  else
    rm -rf "$base"
  fi
}
trap cleanup EXIT
trap 'say "stopping"; exit 130' INT
trap 'say "stopping"; exit 143' TERM

# Prints the last lines of a log after a failure.
show_log() {
  printf -- '---- last lines of %s ----\n' "$1" >&3
  tail -n 25 "$1" >&3 2>/dev/null || true
  printf -- '----\n' >&3
}

# A port nothing listens on (a connection to it is refused). Ports are drawn
# from 20000 up to the start of the kernel's ephemeral range (outgoing
# connections take their local ports there, and a bind to one of those fails
# although nothing listens), so from 20000-32767 with Linux's defaults.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
declare -A used_ports
eph_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
port_lo=20000 port_n=$((eph_lo - 20000))
if [ "$port_n" -lt 2000 ]; then port_lo=1100 port_n=$((eph_lo > 3100 ? eph_lo - 1100 : 2000)); fi
# Sets the variable named $1 (not a subshell: used_ports must remember).
free_port() {
  local p i
  for ((i = 0; i < 200; i++)); do
    p=$((port_lo + (RANDOM * 32768 + RANDOM) % port_n))
    if [ -z "${used_ports[$p]:-}" ] && ! port_taken "$p"; then
      used_ports[$p]=1
      printf -v "$1" %s "$p"
      return 0
    fi
  done
  die "no free port found"
}

# Polls $2 (a command) every 0.1 s until it succeeds, for at most $3 seconds,
# failing early when pid $4 is gone. $1 names what is awaited; $5 is its log.
await() {
  local what=$1 cmd=$2 secs=$3 pid=$4 log=$5 i
  for ((i = 0; i < secs * 10; i++)); do
    if eval "$cmd" >/dev/null 2>&1; then return 0; fi
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      say "$what exited while starting"
      show_log "$log"
      exit 1
    fi
    sleep 0.1
  done
  say "$what did not come up within ${secs}s"
  show_log "$log"
  exit 1
}

# ---- PostgreSQL -------------------------------------------------------------

# initdb refuses to run as root: as root, PostgreSQL runs as the postgres user
# in a directory that user owns.
as_pg=()
mkdir -p "$base/pg"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "user 'postgres' missing: apt-get install postgresql"
  chown postgres: "$base/pg"
  as_pg=(runuser -u postgres --)
fi
free_port pg_port
pg_log=$base/pg/postgres.log
say "starting PostgreSQL on 127.0.0.1:$pg_port"
if ! (cd "$base/pg" && "${as_pg[@]}" "$pg_bin/initdb" -D "$base/pg/data" -U postgres -A trust -E UTF8 \
  --no-locale --no-sync >"$base/logs/initdb.log" 2>&1); then
  say "initdb failed"
  show_log "$base/logs/initdb.log"
  exit 1
fi
# fsync off: a throwaway local cluster, nothing to keep after a crash.
(cd "$base/pg" && exec "${as_pg[@]}" "$pg_bin/postgres" -D "$base/pg/data" -p "$pg_port" -k "$base/pg" \
  -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
  >>"$pg_log" 2>&1) &
runuser_pid=$!
await PostgreSQL "test -s '$base/pg/data/postmaster.pid' && psql -X -At -h 127.0.0.1 -p $pg_port -U postgres -d postgres -c 'SELECT 1'" \
  30 "$runuser_pid" "$pg_log"
pg_pid=$(head -1 "$base/pg/data/postmaster.pid")
pg_dsn="host=127.0.0.1 port=$pg_port user=postgres dbname=postgres"

# ---- Redis ------------------------------------------------------------------

free_port redis_port
say "starting Redis on 127.0.0.1:$redis_port"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$base/redis" \
  --daemonize no >"$base/logs/redis.log" 2>&1 &
redis_pid=$!
await Redis "redis-cli -h 127.0.0.1 -p $redis_port ping | grep -q PONG" 15 "$redis_pid" "$base/logs/redis.log"
redis_url="redis://127.0.0.1:$redis_port/0"

# ---- services ---------------------------------------------------------------

# ---- the API token -------------------------------------------------------------

token=${MARS_TOKEN:-}
if [ "${MARS_OPEN:-0}" = 1 ]; then
  token=""
elif [ -z "$token" ]; then
  token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
fi
token_args=()
if [ -n "$token" ]; then
  (umask 077 && printf '%s\n' "$token" >"$base/token")
  token_args=(--token-file "$base/token")
fi

# The services take their settings from the command line only.
# shellcheck disable=SC2163 # unexports the variable named by $v
for v in $(compgen -e | grep '^MARS_' || true); do export -n "$v"; done

web_port=${MARS_WEB_PORT:-7005}
case "$web_port" in '' | *[!0-9]*) die "MARS_WEB_PORT must be a port number, not '$web_port'" ;; esac
if [ "$web_port" = 0 ]; then
  free_port web_port
elif port_taken "$web_port"; then
  old=$web_port
  free_port web_port
  say "port $old is taken: serving the REST API on $web_port instead"
fi
used_ports[$web_port]=1
free_port sup_port
say "starting mars-supervisor on 127.0.0.1:$sup_port (REST API on $web_port)"
# MARS_MAX_BODY_SIZE: the REST API's largest request body (--max-body-size;
# an uploaded file past the default 256 MiB)
body_args=()
[ -n "${MARS_MAX_BODY_SIZE:-}" ] && body_args=(--max-body-size "$MARS_MAX_BODY_SIZE")
"$bin_dir/mars-supervisor" -H 127.0.0.1 -p "$sup_port" -w "$web_port" --pg-dsn "$pg_dsn" \
  --redis-url "$redis_url" "${token_args[@]}" "${body_args[@]}" >"$base/logs/supervisor.log" 2>&1 &
sup_pid=$!
await mars-supervisor "curl -sf http://127.0.0.1:$sup_port/health" 60 "$sup_pid" "$base/logs/supervisor.log"

cores=$(nproc 2>/dev/null || echo 2)
n_cpu=${MARS_WORKER_CPUS:-$((cores / n_workers > 0 ? cores / n_workers : 1))}
# Worker K's command line, into the array cmd (the same for its restarts).
worker_ports=()
worker_cmd() {
  cmd=("$bin_dir/mars-worker" -H 127.0.0.1 -p "${worker_ports[$1 - 1]}" -s "127.0.0.1:$sup_port"
    --n-cpu "$n_cpu" --phy-mem "$phy_mem" --cache-mem "$cache_mem" --spill-dirs "$base/spill/worker-$1"
    "${token_args[@]}")
}
for ((k = 1; k <= n_workers; k++)); do
  free_port wport
  worker_ports+=("$wport")
  mkdir -p "$base/spill/worker-$k"
  worker_cmd "$k"
  say "starting mars-worker $k on 127.0.0.1:$wport (--n-cpu $n_cpu --phy-mem $phy_mem" \
    "--cache-mem $cache_mem)"
  "${cmd[@]}" >"$base/logs/worker-$k.log" 2>&1 &
  worker_pids+=($!)
  await "mars-worker $k" "curl -sf http://127.0.0.1:$wport/health" 30 "$!" "$base/logs/worker-$k.log"
done

url="http://127.0.0.1:$web_port"
await "the REST API" "curl -sf ${token:+-H 'Authorization: Bearer $token'} $url/api/v1/health" 30 \
  "$sup_pid" "$base/logs/supervisor.log"

# ---- ready ------------------------------------------------------------------

if [ -n "$token" ]; then
  dash="$url/?token=$token"
  hdr=" -H 'Authorization: Bearer $token'"
  token_line="  token:      $token
              (every route but /health needs 'Authorization: Bearer <token>';
              the dashboard link above sets it as a cookie; kept in $base/token)"
  env_tok="MARS_TOKEN=$token "
else
  dash="$url/" hdr="" env_tok=""
  token_line="  token:      none (MARS_OPEN=1): anyone who reaches the port may use the API"
fi
cat <<EOF

mars cluster is up: 1 supervisor, $n_workers workers, PostgreSQL on :$pg_port, Redis on :$redis_port
  dashboard:  $dash
  REST API:   $url/api/v1/health
$token_line
  logs:       $base/logs

Try it (the seed example, inner(ones((2000, 2000)), itself)):

  MARS_URL=$url ${env_tok}examples/seed-inner.sh
  MARS_URL=$url ${env_tok}examples/df_sum.sh      # md.DataFrame(a).sum()

Then open the dashboard link: the task, its graph and its task stream.

or by hand with curl, from the repository root:

  sid=\$(curl -s$hdr -X POST $url/api/v1/sessions | sed 's/.*"session_id" *: *"\\([^"]*\\)".*/\\1/')
  tid=\$(curl -s$hdr -H 'Content-Type: application/json' --data-binary @examples/seed-inner.json \\
        $url/api/v1/sessions/\$sid/tasks | sed 's/.*"task_id" *: *"\\([^"]*\\)".*/\\1/')
  curl -s$hdr "$url/api/v1/sessions/\$sid/tasks/\$tid?wait=60"; echo
  curl -s$hdr -o b.npy "$url/api/v1/sessions/\$sid/tensors/b/data?format=npy"
  curl -s$hdr $url/api/v1/sessions/\$sid/tensors/b; echo
  # when done (frees its data; its task then leaves the dashboard):
  # curl -s$hdr -X DELETE $url/api/v1/sessions/\$sid

EOF

if [ "$check" = 1 ]; then
  out=${MARS_OUT:-$base/out}
  mkdir -p "$out"
  say "check: running examples/seed-inner.sh against $url"
  rc=0
  MARS_URL=$url MARS_TOKEN=$token OUT=$out "$repo/examples/seed-inner.sh" || rc=$?
  if [ "$rc" = 0 ]; then
    say "check passed"
  else
    say "check FAILED (exit $rc)"
    show_log "$base/logs/supervisor.log"
    for ((k = 1; k <= n_workers; k++)); do show_log "$base/logs/worker-$k.log"; done
  fi
  exit "$rc"
fi

echo "Press Ctrl-C to stop."

# Starts worker $1 again with its first command line, after its pid $2 died
# with wait status $3; at most $max_restarts times a minute. Its spill
# directory is emptied first: what a dead worker spilled is lost with it (the
# cluster recomputes lost chunks from their lineage).
declare -A restart_times
restart_worker() {
  local k=$1 old=$2 st=$3 how now recent="" t n=0
  if [ "$st" -gt 128 ]; then
    how="killed by SIG$(kill -l $((st - 128)) 2>/dev/null || echo $((st - 128)))"
  else
    how="exit status $st"
  fi
  now=$(date +%s)
  for t in ${restart_times[$k]:-}; do
    if [ $((now - t)) -lt 60 ]; then recent="$recent $t" n=$((n + 1)); fi
  done
  if [ "$n" -ge "$max_restarts" ]; then
    say "mars-worker $k (pid $old) died ($how) after $n restarts within a minute: stopping"
    show_log "$base/logs/worker-$k.log"
    exit 1
  fi
  restart_times[$k]="$recent $now"
  find "$base/spill/worker-$k" -mindepth 1 -delete 2>/dev/null || true
  worker_cmd "$k"
  printf -- '---- restarted after pid %s died (%s) ----\n' "$old" "$how" >>"$base/logs/worker-$k.log"
  "${cmd[@]}" >>"$base/logs/worker-$k.log" 2>&1 &
  worker_pids[k - 1]=$!
  say "mars-worker $k (pid $old) died ($how); restarted as pid $!"
}

# Runs until a signal, or until the supervisor, Redis or PostgreSQL dies
# (then exits 1 naming it); a dead worker is restarted.
while :; do
  for ((k = 1; k <= n_workers; k++)); do
    pid=${worker_pids[k - 1]}
    if ! kill -0 "$pid" 2>/dev/null; then
      st=0
      wait "$pid" 2>/dev/null || st=$?
      restart_worker "$k" "$pid" "$st"
    fi
  done
  for pid in "$sup_pid" "$redis_pid" "$pg_pid"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      name=service log=""
      [ "$pid" = "$sup_pid" ] && name=mars-supervisor log=$base/logs/supervisor.log
      [ "$pid" = "$redis_pid" ] && name=Redis log=$base/logs/redis.log
      [ "$pid" = "$pg_pid" ] && name=PostgreSQL log=$pg_log
      say "$name (pid $pid) exited unexpectedly"
      [ -n "$log" ] && show_log "$log"
      exit 1
    fi
  done
  sleep 1 &
  wait $! || true
done 2>/dev/null
