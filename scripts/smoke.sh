#!/usr/bin/env bash
# Smoke test of the developer launcher: `pnpm start` on the embedded default answers
# /healthz on both services, which listen on 127.0.0.1 only (no HOST set), a search finds
# documents just added and again after the search
# index's folder thread folded them, survives a kill -9 of the launcher (a second start
# works), stops cleanly on SIGTERM and leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/.."
FEED_PORT=${FEED_PORT:-8080}
SEARCH_PORT=${SEARCH_PORT:-8081}
log=$(mktemp)
unset HOST # the launcher's default bind address (127.0.0.1) is checked below

wait_healthy() {
  for _ in $(seq 1 120); do
    if grep -q "Ctrl-C stops everything" "$log" &&
       curl -fsS "http://127.0.0.1:$FEED_PORT/healthz" >/dev/null 2>&1 &&
       curl -fsS "http://127.0.0.1:$SEARCH_PORT/healthz" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.5
  done
  echo "services did not become healthy; launcher output:"; cat "$log"; return 1
}
launcher_pid() { pgrep -f "^node scripts/start.mjs" | head -n 1; }
leftovers() { pgrep -f "services/(feed|search)-service/dist/main.js|\.data/postgres" || true; }
# the local addresses listening on TCP port $1 (from /proc/net/tcp and tcp6), one per line
listening_on() {
  node -e '
    const port = Number(process.argv[1]);
    const ip4 = (h) => h.match(/../g).reverse().map((b) => parseInt(b, 16)).join(".");
    for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let rows = [];
      try { rows = require("fs").readFileSync(f, "utf8").trim().split("\n").slice(1); } catch {}
      for (const r of rows) {
        const [, local, , st] = r.trim().split(/\s+/);
        const [addr, p] = local.split(":");
        if (st !== "0A" || parseInt(p, 16) !== port) continue;
        if (addr.length === 8) console.log(ip4(addr));
        else if (/^0+$/.test(addr)) console.log("::");
        else if (/^0{20}FFFF0000/i.test(addr)) console.log(ip4(addr.slice(24)));
        else console.log(addr);
      }
    }' "$1" | sort -u
}

echo "a start-up failure is a JSON line at error level (feed-service without DATABASE_URL)"
pnpm build >/dev/null
line=$(env -u DATABASE_URL FEED_JWT_SECRET= node services/feed-service/dist/main.js 2>&1 || true)
node -e 'const l = JSON.parse(process.argv[1]); if (l.level !== 50 || !/DATABASE_URL is required/.test(l.err.message)) process.exit(1)' "$line" ||
  { echo "expected one JSON error line, got: $line"; exit 1; }

echo "first start"
setsid pnpm start >"$log" 2>&1 &
wait_healthy
grep -E "feed-service|search-service|apikey|feed token" "$log" | head -n 12 || true

echo "bind address: both services listen on 127.0.0.1 only (HOST unset)"
for port in "$FEED_PORT" "$SEARCH_PORT"; do
  addrs=$(listening_on "$port")
  [ "$addrs" = "127.0.0.1" ] || { echo "port $port listens on: ${addrs:-nothing} (expected 127.0.0.1 only)"; exit 1; }
done

echo "search: add 3 documents with the dev credentials, search them before and after the fold"
cid=$(node -p "require('./.data/dev-credentials.json').collection.collection_id")
key=$(node -p "require('./.data/dev-credentials.json').collection.apikey")
base="http://127.0.0.1:$SEARCH_PORT/v2/$cid"
run=$(date +%s%N)
for i in 1 2 3; do
  curl -fsS -X POST "$base/docs" --data-urlencode "apikey=$key" --data-urlencode "dockey=smoke-$run-$i" \
    --data-urlencode "doc={\"icontents_title\":\"smoke$run 연기 시험\",\"icontents_body\":\"b\",\"score_regdate\":1700000000}" >/dev/null
done
found() { curl -fsS "$base/search/json?apikey=$key&q=smoke$run" | node -p "JSON.parse(require('fs').readFileSync(0)).numfound"; }
[ "$(found)" = 3 ] || { echo "search right after the adds did not find 3 documents"; exit 1; }
# (the body is read whole before grep looks at it: `curl | grep -q` under pipefail fails
# whenever grep exits before curl has written everything)
folded() {
  local metrics
  metrics=$(curl -fsS "http://127.0.0.1:$SEARCH_PORT/metrics") &&
    grep -Eq '^search_fold_batch_documents_count\{[^}]*\} [1-9]' <<<"$metrics"
}
for _ in $(seq 1 40); do
  folded && break
  sleep 0.25
done
folded || { echo "the folder thread did not fold (no search_fold_batch_documents in /metrics)"; exit 1; }
[ "$(found)" = 3 ] || { echo "search after the fold did not find 3 documents"; exit 1; }
echo "search found the documents before and after the fold"

echo "kill -9 of the launcher, then a second start"
kill -9 "$(launcher_pid)"
sleep 1
setsid pnpm start >"$log" 2>&1 &
wait_healthy
echo "healthy again after kill -9"

echo "SIGTERM"
kill -TERM "$(launcher_pid)"
for _ in $(seq 1 60); do [ -z "$(launcher_pid)" ] && [ -z "$(leftovers)" ] && break; sleep 0.5; done
if [ -n "$(leftovers)" ] || [ -n "$(launcher_pid)" ]; then
  echo "processes left running after SIGTERM:"; ps -fp $(leftovers) $(launcher_pid) || true
  exit 1
fi
echo "smoke test passed: nothing left running"
