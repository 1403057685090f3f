#!/usr/bin/env bash
# Runs examples/normal-equations.json on a running cluster (`make run`) with curl: see
# examples/submit.sh for what it does and its settings (MARS_URL, OUT, ...).
exec "$(dirname "$0")/submit.sh" "$(dirname "$0")/normal-equations.json"
