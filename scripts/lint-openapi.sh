#!/usr/bin/env bash
# Lints the committed openapi.json with Redocly CLI (rules: redocly.yaml). No telemetry and no
# update check: the linter must not phone home from a developer's machine or from CI.
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
exec node_modules/.bin/redocly lint openapi.json --format=stylish "$@"
