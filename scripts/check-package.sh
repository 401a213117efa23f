#!/usr/bin/env bash
# The package as a user installs it (issue 48): `npm pack`, the tarball installed into an empty
# folder with production dependencies only, then `npx rampart start` (embedded PostgreSQL, the
# console built into the tarball) must answer /readyz and serve the console. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/rampart-package-check.XXXXXX")
server=''
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server"
    wait "$server" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# `npm pack` runs `prepare` first: the console (dist/web) is built and packed.
npm pack --silent --pack-destination "$work" >/dev/null
tarball=$(ls "$work"/rampart-*.tgz)
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB)"

# An empty project, as docs/operations.md#installing-a-pinned-version writes it: npm applies only
# the installing project's allowScripts (npm 12 runs no unreviewed install script) and overrides
# (light-my-request pinned for Node 20), so it repeats ours; rampart's own `prepare` (it builds a
# checkout) is denied: the tarball carries the built console.
mkdir "$work/app"
node -e '
  const ours = require(process.argv[1]);
  const app = { name: "rampart-install-check", private: true, allowScripts: { ...ours.allowScripts, rampart: false }, overrides: ours.overrides };
  require("fs").writeFileSync(process.argv[2], JSON.stringify(app, null, 2));
' "$root/package.json" "$work/app/package.json"
(cd "$work/app" && npm install --no-audit --no-fund --omit=dev "$tarball")
if [ -e "$work/app/node_modules/vitest" ] || [ -e "$work/app/node_modules/typescript" ]; then
  echo "a development dependency was installed with the package" >&2
  exit 1
fi

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# The command `npx rampart start` runs, exec'ed so that $server is Rampart itself (npx would not
# pass SIGTERM on, and the cleanup must stop the embedded PostgreSQL before deleting its files).
(cd "$work/app" && PORT=$port RAMPART_DATA_DIR="$work/data" LOG_LEVEL=warn exec node_modules/.bin/rampart start) &
server=$!
for _ in $(seq 300); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; then
    break
  fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "npx rampart start exited before answering /readyz" >&2
    exit 1
  fi
  sleep 1
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { echo "/readyz did not answer 200 within 300 s" >&2; exit 1; }
curl -sf "http://127.0.0.1:$port/" | grep -q '<div id="root"' || { echo "the installed package does not serve the web console" >&2; exit 1; }
curl -sf "http://127.0.0.1:$port/api/docs/openapi.json" | grep -q '"operationId"' || { echo "the installed package does not serve its OpenAPI document" >&2; exit 1; }
echo "the installed package answers /readyz on port $port and serves the console"
