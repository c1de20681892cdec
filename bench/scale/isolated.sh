#!/bin/sh
# Runs the scale benchmark (bench/scale/run.ts, options passed through) inside a fresh network
# namespace with only loopback up: nothing the CLI or the fake API server does can leave the host,
# and no other traffic shares the namespace. `deno task bench` runs this. Needs unshare (util-linux)
# and ip (iproute2); as root a plain network namespace, otherwise a user namespace maps us to root.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
for tool in unshare ip; do
  command -v "$tool" >/dev/null 2>&1 || { echo "isolated.sh: $tool not found (needed for an isolated network namespace)" >&2; exit 3; }
done
deno=${DENO:-$(command -v deno || echo "$root/tools/node_modules/.bin/deno")}
if [ "$(id -u)" = 0 ]; then ns="-n"; else ns="-rn"; fi
exec unshare $ns sh -c 'ip link set lo up && exec "$@"' isolated \
  "$deno" run --frozen --config "$root/deno.json" --allow-env --allow-read --allow-write --allow-run \
  --allow-sys --allow-net=127.0.0.1 "$root/bench/scale/run.ts" "$@"
