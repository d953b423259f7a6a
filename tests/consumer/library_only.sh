#!/bin/sh
# A library-only configure needs only the library's dependencies:
#
#   library_only.sh WORK
#
# configures weir's source with the tests, tools, examples and benchmark off,
# on a machine where Criterion cannot be found (a pkg-config that refuses
# it), and checks the configure succeeds without looking for it or for
# Node.js and Chromium; then that a configure with WEIR_BUILD_TESTS=ON stops
# without it, naming the missing library and its Debian package, and that
# jansson, which the connectors' libraries built beside libweir need
# (libweir-file's JSON lines), is required as well. Configures only (a few seconds); the library itself is built by
# check.sh's add_subdirectory step and by .ci/run's Debian packages.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
work=$1
rm -rf "$work"
mkdir -p "$work/bin"

fail() {
    echo "library-only: $*" >&2
    exit 1
}

# pkg-config that cannot find the packages named in $WEIR_HIDE (a machine
# without them).
real_pkg_config=$(command -v pkg-config)
cat >"$work/bin/pkg-config" <<WRAP
#!/bin/sh
for a in "\$@"; do
    for h in \$WEIR_HIDE; do
        case "\$a" in "\$h"*) exit 1 ;; esac
    done
done
exec "$real_pkg_config" "\$@"
WRAP
chmod +x "$work/bin/pkg-config"
pc="-DPKG_CONFIG_EXECUTABLE=$work/bin/pkg-config"

# Node.js is only looked for by tests/viewer: the cache says whether it was.
off="-DWEIR_BUILD_TOOLS=OFF -DWEIR_BUILD_EXAMPLES=OFF -DWEIR_BUILD_BENCH=OFF"
# shellcheck disable=SC2086
WEIR_HIDE="criterion" cmake -S "$src" -B "$work/lib" -DWEIR_BUILD_TESTS=OFF $off "$pc" \
    >"$work/lib.log" 2>&1 || { cat "$work/lib.log" >&2; fail "the library-only configure failed"; }
if grep -qE "^[A-Za-z_]*(CRITERION|NODE_EXECUTABLE|WEIR_CHROMIUM)[A-Za-z_]*:" "$work/lib/CMakeCache.txt"; then
    fail "the library-only configure looked for Criterion or Node.js ($work/lib/CMakeCache.txt)"
fi
echo "library-only: configure without Criterion or Node.js: ok"

# The test build REQUIRES Criterion, the connectors' libraries jansson, and
# each says what to install.
for hide in criterion jansson; do
    build_tests=ON
    [ "$hide" = jansson ] && build_tests=OFF
    # shellcheck disable=SC2086
    if WEIR_HIDE=$hide cmake -S "$src" -B "$work/tests-$hide" -DWEIR_BUILD_TESTS=$build_tests \
        $([ "$build_tests" = OFF ] && echo $off) "$pc" \
        >"$work/tests-$hide.log" 2>&1; then
        fail "the configure succeeded without $hide"
    fi
    # (CMake wraps the message's lines)
    tr -s ' \n' '  ' <"$work/tests-$hide.log" |
        grep -q "requires the library '$hide', not found. Install the Debian package 'lib$hide-dev'" ||
        { cat "$work/tests-$hide.log" >&2; fail "the test build's configure did not name $hide and its package"; }
done
echo "library-only: without Criterion the test build, without jansson any build stops, naming what to install: ok"
