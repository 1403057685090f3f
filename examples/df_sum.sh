#!/usr/bin/env bash
# md.DataFrame(a).sum() through the REST API, with curl only: creates a
# session, submits examples/df_sum.json (a 15000 x 4 tensor as a DataFrame
# of 2000-row chunks, summed per column), waits for the task, prints the
# Series' metadata, its JSON ({"name", "index", "data", "dtype"}, saved as
# OUT/s.json) and its CSV (Accept: text/csv, saved as OUT/s.csv). The session
# is kept (its task stays on the dashboard) unless KEEP_SESSION=0.
#
# Environment: MARS_URL (default http://127.0.0.1:7005, as `make run`),
# MARS_TOKEN (the API token `make run` prints; empty: none), OUT (default
# /tmp/mars-examples/df_sum).
set -euo pipefail

url=${MARS_URL:-http://127.0.0.1:7005}
url=${url%/}
graph="$(dirname "$0")/df_sum.json"
out=${OUT:-/tmp/mars-examples/df_sum}
mkdir -p "$out"
auth=()
[ -z "${MARS_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $MARS_TOKEN")
api() { curl -sSf "${auth[@]}" "$@"; }
field() { sed -n 's/.*"'"$1"'" *: *"\{0,1\}\([^",} ]*\).*/\1/p' | head -1; }

sid=$(api -X POST "$url/api/v1/sessions" | field session_id)
finish() {
  if [ "${KEEP_SESSION:-1}" = 0 ]; then
    curl -s "${auth[@]}" -o /dev/null -X DELETE "$url/api/v1/sessions/$sid" && echo "deleted session $sid"
  else
    echo "kept session $sid"
  fi
}
trap finish EXIT
echo "session $sid"

tid=$(api -X POST -H 'Content-Type: application/json' --data-binary "@$graph" \
  "$url/api/v1/sessions/$sid/tasks" | field task_id)
echo "task $tid"

status=pending
for _ in $(seq 20); do
  status=$(api "$url/api/v1/sessions/$sid/tasks/$tid?wait=30" --max-time 60 | field status)
  case "$status" in succeeded | failed | cancelled) break ;; esac
done
echo "task $tid: $status"
[ "$status" = succeeded ] || { curl -sS "${auth[@]}" "$url/api/v1/sessions/$sid/tasks/$tid"; echo; exit 1; }

echo "metadata:"
api "$url/api/v1/sessions/$sid/tensors/s"; echo
echo "JSON:"
api -o "$out/s.json" "$url/api/v1/sessions/$sid/tensors/s/data"
cat "$out/s.json"; echo
echo "CSV:"
api -H 'Accept: text/csv' -o "$out/s.csv" "$url/api/v1/sessions/$sid/tensors/s/data"
cat "$out/s.csv"
echo "df_sum: succeeded"
