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
# Private networks allowed: the intel sync below reads a feed served on this machine.
(cd "$work/app" && PORT=$port RAMPART_DATA_DIR="$work/data" RAMPART_ALLOW_PRIVATE_NETWORKS=1 LOG_LEVEL=warn exec node_modules/.bin/rampart start 2>"$work/stderr") &
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
# The tarball carries the compiled server (dist/server), recognised as built from the sources it
# carries although npm gave every file another modification time: no fallback to tsx.
if grep -q 'running the TypeScript sources' "$work/stderr"; then
  echo "the installed package runs its TypeScript sources instead of its compiled build:" >&2
  cat "$work/stderr" >&2
  exit 1
fi

# An intel sync, the code the worker loads on demand (a connector chunk): an RSS 2.0 feed served
# here, synced through the API, its item listed.
mkdir "$work/feed"
cat >"$work/feed/feed.xml" <<'RSS'
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Package check</title><link>https://example.org/</link><description>check</description>
<item><title>Package check advisory</title><link>https://example.org/advisories/1</link><guid>https://example.org/advisories/1</guid>
<pubDate>Sun, 29 Nov 2026 08:00:00 GMT</pubDate><description>The actor used 203.0.113.7 and evil-package-check.example.</description></item>
</channel></rss>
RSS
feed_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
python3 -m http.server "$feed_port" --bind 127.0.0.1 --directory "$work/feed" >/dev/null 2>&1 &
feed_server=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$feed_port/feed.xml" && break; sleep 0.2; done
key=$(cat "$work/data/bootstrap-api-key")
api() { curl -sf -H "Authorization: Bearer $key" -H 'content-type: application/json' "$@"; }
source_id=$(api -d "{\"kind\":\"rss\",\"name\":\"Package check\",\"feedUrl\":\"http://127.0.0.1:$feed_port/feed.xml\"}" "http://127.0.0.1:$port/sources" | node -pe 'JSON.parse(require("fs").readFileSync(0,"utf8")).id')
api -X POST "http://127.0.0.1:$port/sources/$source_id/sync" >/dev/null
synced=''
for _ in $(seq 60); do
  if api "http://127.0.0.1:$port/items" | grep -q 'Package check advisory'; then synced=1; break; fi
  sleep 1
done
kill "$feed_server" 2>/dev/null || true
if [ -z "$synced" ]; then
  echo "the installed package did not sync an RSS source within 60 s:" >&2
  cat "$work/stderr" >&2
  exit 1
fi
echo "the installed package answers /readyz on port $port, serves the console, runs its compiled build and syncs an intel source"
