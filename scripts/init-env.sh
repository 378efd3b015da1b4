#!/bin/sh
# Writes .env for the compose stack: .env.example with every secret filled with a random value
# (hex, from /dev/urandom; no openssl or Node needed). MEILI_API_KEY gets the master key.
#   sh scripts/init-env.sh             # writes .env next to docker-compose.yml (mode 600)
#   sh scripts/init-env.sh --force     # replaces an existing .env (its secrets are lost)
#   sh scripts/init-env.sh OUT_FILE    # writes another file (tests)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
force=no
out="$root/.env"
for arg in "$@"; do
  case "$arg" in
    --force) force=yes ;;
    -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "init-env.sh: unknown option $arg" >&2; exit 2 ;;
    *) out=$arg ;;
  esac
done
if [ -e "$out" ] && [ "$force" != yes ]; then
  echo "init-env.sh: $out exists; keeping it (--force replaces it and its secrets)" >&2
  exit 1
fi

# n random bytes as 2n hex characters
hex() { od -An -vtx1 -N"$1" /dev/urandom | tr -d ' \n'; }

postgres_password=$(hex 32)
meili_master_key=$(hex 32)
feed_jwt_secret=$(hex 32)
search_admin_token=$(hex 24)

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
umask 077
sed \
  -e "s/^POSTGRES_PASSWORD=\$/POSTGRES_PASSWORD=$postgres_password/" \
  -e "s/^MEILI_MASTER_KEY=\$/MEILI_MASTER_KEY=$meili_master_key/" \
  -e "s/^MEILI_API_KEY=\$/MEILI_API_KEY=$meili_master_key/" \
  -e "s/^FEED_JWT_SECRET=\$/FEED_JWT_SECRET=$feed_jwt_secret/" \
  -e "s/^SEARCH_ADMIN_TOKEN=\$/SEARCH_ADMIN_TOKEN=$search_admin_token/" \
  "$root/.env.example" >"$tmp"
# every secret left empty in .env.example must now have a value
if grep -Eq '^(POSTGRES_PASSWORD|MEILI_MASTER_KEY|MEILI_API_KEY|FEED_JWT_SECRET|SEARCH_ADMIN_TOKEN)=$' "$tmp"; then
  echo "init-env.sh: a secret is still empty in $tmp" >&2
  exit 1
fi
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out with random secrets (POSTGRES_PASSWORD, MEILI_MASTER_KEY, MEILI_API_KEY, FEED_JWT_SECRET, SEARCH_ADMIN_TOKEN)"
