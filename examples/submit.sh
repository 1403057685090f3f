#!/usr/bin/env bash
# Runs one graph document on a mars cluster through the REST API, with curl
# only: creates a session, submits the document, waits for the task, fetches
# every fetched tensor as .npy (saved) and as JSON (saved; shape and dtype
# printed), then deletes the session.
#
# Usage: examples/submit.sh GRAPH.json
# Environment:
#   MARS_URL      the REST API (default http://127.0.0.1:7005, as `make run`)
#   MARS_TOKEN    the API token, sent as `Authorization: Bearer` (`make run`
#                 prints it); empty: none
#   OUT           where KEY.npy and KEY.json go (default
#                 /tmp/mars-examples/NAME, NAME the document's base name)
#   WAIT          seconds to wait for the task (default 300)
#   KEEP_SESSION  1 (default): keep the session, so that its task stays on the
#                 dashboard and its tensors can be fetched again; 0: delete it
#                 at the end (frees its data; its tasks leave the dashboard)
# Exit status: 0 when the task succeeded and every tensor was fetched; 1
# otherwise, with the failing answer printed.
set -euo pipefail

graph=${1:?usage: examples/submit.sh GRAPH.json}
[ -r "$graph" ] || { echo "submit: cannot read $graph" >&2; exit 1; }
url=${MARS_URL:-http://127.0.0.1:7005}
url=${url%/}
name=$(basename "$graph" .json)
out=${OUT:-/tmp/mars-examples/$name}
wait_total=${WAIT:-300}
mkdir -p "$out"
tmp=$(mktemp -d)
sid=""
auth=()
[ -z "${MARS_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $MARS_TOKEN")

finish() {
  if [ -n "$sid" ] && [ "${KEEP_SESSION:-1}" = 0 ]; then
    curl -s "${auth[@]}" -o /dev/null -X DELETE "$url/api/v1/sessions/$sid" || true
    echo "deleted session $sid"
  elif [ -n "$sid" ]; then
    echo "kept session $sid (delete it: curl -X DELETE $url/api/v1/sessions/$sid, with the token)"
  fi
  rm -rf "$tmp"
}
trap finish EXIT

# api METHOD PATH EXPECTED_STATUS [curl options...]: the body lands in
# $tmp/body; any other status prints the answer and exits 1.
api() {
  local method=$1 path=$2 want=$3 code
  shift 3
  code=$(curl -sS "${auth[@]}" -X "$method" -o "$tmp/body" -w '%{http_code}' "$@" "$url$path") ||
    { echo "submit: $method $url$path: no answer (is the cluster up? \`make run\`)" >&2; exit 1; }
  if [ "$code" != "$want" ]; then
    echo "submit: $method $path answered $code (expected $want): $(head -c 2000 "$tmp/body")" >&2
    exit 1
  fi
}

# field NAME: a string or number field of the JSON object in $tmp/body.
field() {
  sed -n 's/.*"'"$1"'" *: *"\{0,1\}\([^",} ]*\).*/\1/p' "$tmp/body" | head -1
}

api POST /api/v1/sessions 201
sid=$(field session_id)
echo "session $sid"

api POST "/api/v1/sessions/$sid/tasks" 202 -H 'Content-Type: application/json' --data-binary "@$graph"
tid=$(field task_id)
echo "task $tid submitted ($graph)"

# ?wait= holds the answer until the task ends or the time passes (at most 30 s
# per request here, so a long task shows its progress).
status=pending
deadline=$((SECONDS + wait_total))
while :; do
  left=$((deadline - SECONDS))
  [ "$left" -gt 30 ] && left=30
  [ "$left" -lt 1 ] && left=1
  api GET "/api/v1/sessions/$sid/tasks/$tid?wait=$left" 200 --max-time $((left + 30))
  status=$(field status)
  echo "task $tid: $status, progress $(field progress) ($(field chunks_done)/$(field chunks_total) chunks)"
  case "$status" in
  succeeded | failed | cancelled) break ;;
  pending | running) ;;
  *) echo "submit: unexpected task answer: $(head -c 2000 "$tmp/body")" >&2; exit 1 ;;
  esac
  [ "$SECONDS" -ge "$deadline" ] && { echo "submit: task still $status after ${wait_total}s" >&2; exit 1; }
done
if [ "$status" != succeeded ]; then
  echo "submit: task $status: $(head -c 2000 "$tmp/body")" >&2
  exit 1
fi

# The fetch list of the document (one line, as in examples/*.json).
keys=$(tr -d '\n' <"$graph" | grep -o '"fetch" *: *\[[^]]*\]' | sed 's/"fetch"//' | grep -o '"[^"]*"' | tr -d '"')
for key in $keys; do
  api GET "/api/v1/sessions/$sid/tensors/$key" 200
  echo "tensor $key: $(tr -d '\n' <"$tmp/body")"
  api GET "/api/v1/sessions/$sid/tensors/$key/data?format=npy" 200 -H 'Accept: application/x-npy'
  mv "$tmp/body" "$out/$key.npy"
  # The .npy header: {'descr': '<f8', 'fortran_order': False, 'shape': (...), }
  echo "  $out/$key.npy: $(wc -c <"$out/$key.npy") bytes, $(head -c 512 "$out/$key.npy" | tr -c '[:print:]' ' ' |
    grep -o "{.*}" | head -1)"
  api GET "/api/v1/sessions/$sid/tensors/$key/data" 200 -H 'Accept: application/json'
  mv "$tmp/body" "$out/$key.json"
  meta=$(head -c 65536 "$out/$key.json" | grep -o '"shape" *: *\[[^]]*\]\|"dtype" *: *"[^"]*"' | head -2 | tr '\n' ' ')
  echo "  $out/$key.json: $(wc -c <"$out/$key.json") bytes, $meta"
done
echo "$name: succeeded"
