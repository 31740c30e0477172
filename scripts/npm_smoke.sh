#!/usr/bin/env bash
# The npm package on Node 22, as a user installs it: builds dist/npm, packs it,
# installs the tarball into a temporary project next to Node 22 (the npm `node`
# package ships the binary), then from Node runs scripts/npm/smoke.mjs
# (scrape_urls against a page served on 127.0.0.1 by that script, MCP
# tools/list over `npx gleaner mcp`, the Deep Research toolkit on a fresh SDK
# server), tsc on a typed consumer
# (scripts/npm/smoke_types.ts) and `npx gleaner --version`.
# Needs the npm registry (packages only); all traffic of the checks is loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

deno task build:npm
(cd dist/npm && npm pack --silent --pack-destination "$tmp" >/dev/null)
tarball=$(ls "$tmp"/*.tgz)
echo "npm: packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB)"

# The machine's own Node (before Node 22 is put first on PATH), for the version gate.
sys_node=$(command -v node || true)
mkdir -p "$tmp/node" "$tmp/app"
(cd "$tmp/node" && npm install --silent --no-audit --no-fund --no-save node@22 >/dev/null 2>&1)
export PATH="$tmp/node/node_modules/node/bin:$PATH"
echo "npm: node $(node --version)"

cd "$tmp/app"
echo '{ "name": "gleaner-npm-smoke", "private": true, "type": "module" }' > package.json
npm install --silent --no-audit --no-fund --ignore-scripts "$tarball" >/dev/null
# A Node.js older than the package's engines is refused at start-up, naming both versions.
if [ -n "$sys_node" ] && [ "$("$sys_node" -p 'Number(process.versions.node.split(".")[0])')" -lt 22 ]; then
  set +e
  old=$("$sys_node" node_modules/@gleaner/gleaner/cli.js --version 2>&1)
  code=$?
  set -e
  if [ "$code" != 1 ] || [[ "$old" != "Gleaner needs Node.js >= 22.16 (this is "* ]]; then
    echo "FAIL old Node: exit $code: $old"
    exit 1
  fi
  echo "ok old Node refused: $old"
  # The library too, on import, before Node trips over a builtin it lacks.
  set +e
  lib=$("$sys_node" --input-type=module -e 'await import("@gleaner/gleaner")' 2>&1)
  code=$?
  set -e
  if [ "$code" = 0 ] || [[ "$lib" != *"Gleaner needs Node.js >= 22.16 (this is "* ]] ||
    [[ "$lib" == *ERR_UNKNOWN_BUILTIN_MODULE* ]]; then
    echo "FAIL old Node, library import: exit $code: $lib"
    exit 1
  fi
  echo "ok old Node refused on library import: $(grep -o 'Gleaner needs Node.js[^)]*)' <<<"$lib" | head -1)"
fi
# The package names no repository it does not have (never the JSR page).
repository=$(node -p 'JSON.stringify(require("./node_modules/@gleaner/gleaner/package.json").repository ?? null)')
if [[ "$repository" == *jsr.io* ]]; then
  echo "FAIL package.json repository points at JSR: $repository"
  exit 1
fi
echo "ok package.json repository: $repository"
# No SQLite ExperimentalWarning on Node 22 (domains opens the store), without --no-warnings.
warned=$(GLEANER_STORE_PATH=:memory: npx --no-install gleaner domains 2>&1 >/dev/null || true)
if grep -q "SQLite is an experimental feature" <<<"$warned"; then
  echo "FAIL: the SQLite ExperimentalWarning was printed: $warned"
  exit 1
fi
# Nor when a program uses the library (the store opens SQLite).
warned=$(node --input-type=module -e '
const { createGleaner } = await import("@gleaner/gleaner");
const gleaner = await createGleaner({
  store: { path: ":memory:" }, memory: { path: ":memory:" }, embed: { provider: "none" },
});
await gleaner.close();
' 2>&1 >/dev/null)
if grep -q "SQLite is an experimental feature" <<<"$warned"; then
  echo "FAIL: the library printed the SQLite ExperimentalWarning: $warned"
  exit 1
fi
echo "ok no SQLite ExperimentalWarning on Node $(node --version) (CLI and library)"
cp "$root/scripts/npm/smoke.mjs" smoke.mjs
NO_COLOR=1 node --no-warnings smoke.mjs
# The types: tsc on a consumer of the library entry points.
npm install --silent --no-audit --no-fund --no-save typescript@5.9.3 @types/node@22.20.7 >/dev/null
cp "$root/scripts/npm/smoke_types.ts" smoke_types.ts
npx --no-install tsc --noEmit --strict --target es2022 --module nodenext \
  --moduleResolution nodenext --skipLibCheck --types node smoke_types.ts
echo "ok tsc: the package's .d.ts type a consumer of ., ./mcp, ./http and ./deep-research"
version=$(npx --no-install gleaner --version)
[ "$version" = "gleaner $(cd "$root" && deno eval 'console.log(JSON.parse(Deno.readTextFileSync("deno.json")).version)')" ]
echo "ok npx gleaner --version: $version"
