#!/bin/sh
# Installs everything weir needs to build, test, package and view on Debian,
# with apt-get, as root: the compilers (gcc and clang: the header checks use
# both) and CMake, the libraries the build REQUIREs (Concurrency Kit,
# liburcu, msgpack-c, xxHash, jansson and libcsv for the file source,
# librdkafka for Kafka (its mock cluster, rdkafka_mock.h, runs the tests),
# libunistring for SQL's UPPER and LOWER (Unicode case mapping), PCRE2 for
# SQL's regular expressions (REGEXP_EXTRACT, REGEXP_REPLACE, SIMILAR TO),
# libmicrohttpd for the HTTP server of a running job (docs/LIVE.md),
# libedit for the line editing and history of `weir sql`'s shell (docs/SHELL.md);
# Criterion for the tests, GMP for the DECIMAL property test's own arithmetic), libclang-rt-14-dev for the fuzz preset (libFuzzer's
# runtime, libclang_rt.fuzzer*.a, is there, not in clang's own dependencies), dpkg-dev and file for CPack's Debian packages,
# cppcheck for the static analysis (scripts/cppcheck.sh), and
# Debian's Chromium with Node.js for the viewer's browser tests
# (playwright-core from npm drives that Chromium; no browser is ever
# downloaded). Idempotent: what is present is left alone, so a second run
# costs a few dpkg queries. Both README commands and .ci/run start with it.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)

packages="build-essential clang libclang-rt-14-dev cmake pkg-config dpkg-dev file libck-dev liburcu-dev \
libmsgpack-dev libcriterion-dev libgmp-dev libjansson-dev libcsv-dev libxxhash-dev librdkafka-dev libunistring-dev libpcre2-dev chromium \
libmicrohttpd-dev libedit-dev \
cppcheck"
# Node.js may come from elsewhere (some images ship NodeSource's nodejs, which
# bundles npm and conflicts with Debian's npm package): only install Debian's
# when the commands are absent.
command -v node >/dev/null 2>&1 || packages="$packages nodejs"
command -v npm >/dev/null 2>&1 || packages="$packages npm"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "install-deps: missing Debian packages:$missing" >&2
        echo "install-deps: run this script as root (it uses apt-get)" >&2
        exit 1
    fi
    echo "install-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ ! -d "$here/tests/viewer/node_modules/playwright-core" ]; then
    echo "install-deps: installing playwright-core for tests/viewer"
    (cd "$here/tests/viewer" && npm install --no-audit --no-fund --silent)
fi
