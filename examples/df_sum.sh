#!/usr/bin/env bash
# md.DataFrame(a).sum() through the REST API, with curl only: creates a
# session, submits examples/df_sum.json (a 15000 x 4 tensor as a DataFrame
# of 2000-row chunks, summed per column), waits for the task, prints the
# Series' metadata, its JSON ({"name", "index", "data", "dtype"}) and its
# CSV (Accept: text/csv), then deletes the session.
#
# Environment: MARS_URL (default http://127.0.0.1:7005, as `make run`).
set -euo pipefail

url=${MARS_URL:-http://127.0.0.1:7005}
url=${url%/}
graph="$(dirname "$0")/df_sum.json"

field() { sed -n 's/.*"'"$1"'" *: *"\{0,1\}\([^",} ]*\).*/\1/p' | head -1; }

sid=$(curl -sSf -X POST "$url/api/v1/sessions" | field session_id)
trap 'curl -s -o /dev/null -X DELETE "$url/api/v1/sessions/$sid"' EXIT
echo "session $sid"

tid=$(curl -sSf -X POST -H 'Content-Type: application/json' --data-binary "@$graph" \
  "$url/api/v1/sessions/$sid/tasks" | field task_id)
echo "task $tid"

status=pending
for _ in $(seq 20); do
  status=$(curl -sSf "$url/api/v1/sessions/$sid/tasks/$tid?wait=30" --max-time 60 | field status)
  case "$status" in succeeded | failed | cancelled) break ;; esac
done
echo "task $tid: $status"
[ "$status" = succeeded ] || { curl -sS "$url/api/v1/sessions/$sid/tasks/$tid"; echo; exit 1; }

echo "metadata:"
curl -sSf "$url/api/v1/sessions/$sid/tensors/s"; echo
echo "JSON:"
curl -sSf "$url/api/v1/sessions/$sid/tensors/s/data"
echo "CSV:"
curl -sSf -H 'Accept: text/csv' "$url/api/v1/sessions/$sid/tensors/s/data"
