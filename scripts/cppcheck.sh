#!/bin/sh
# Static analysis of the library and the command line with cppcheck (Debian's
# package; scripts/install-deps.sh installs it): each folder of CMakeLists.txt's
# weir_part (and tools/) is checked with the include directories its build
# has, so a header from behind a wall is not found here either
# (missingInclude is on). Checks: warning, style, performance, portability.
# Any finding fails the run (exit 1): mend it. Only a false positive is
# suppressed, at its line, with the reason on the same line:
#     // cppcheck-suppress <id> ; why cppcheck is wrong here
# About 20 s on one core; .ci/run runs it.
set -eu
cd "$(dirname "$0")/.."

command -v cppcheck >/dev/null 2>&1 || {
    echo "cppcheck.sh: cppcheck is not installed (scripts/install-deps.sh)" >&2
    exit 2
}

# runtime/ and checkpoint/ see diag/diag.h alone (the build copies it into a
# folder of its own, build/*/walls/diag): the same here.
walls=$(mktemp -d)
trap 'rm -rf "$walls"' EXIT
cp diag/diag.h "$walls/"

status=0
out="$walls/out"
# check FOLDER [INCLUDE_DIR...]: the folder's .c files, with include/, the
# folder itself and the directories named. Any line cppcheck prints (quiet,
# it prints only findings) fails the run: so does its note that it cannot
# find an include file, which --error-exitcode lets pass (the list below
# has fallen behind CMakeLists.txt, or a file reaches behind its wall).
check() {
    folder=$1
    shift
    incs="-Iinclude -I$folder"
    for d in "$@"; do
        incs="$incs -I$d"
    done
    # shellcheck disable=SC2086
    cppcheck --quiet --std=c11 --error-exitcode=1 --inline-suppr \
        --enable=warning,style,performance,portability,missingInclude \
        --suppress=missingIncludeSystem \
        --template='{file}:{line}: {severity} {id}: {message}' \
        $defs $incs "$folder"/*.c >"$out" 2>&1 || status=1
    if [ -s "$out" ]; then
        cat "$out" >&2
        status=1
    fi
}

# The walls, as CMakeLists.txt's weir_part lines and tools/CMakeLists.txt
# (the library's files are built with WEIR_BUILDING, the tool's without).
defs=-DWEIR_BUILDING
check base
check runtime base "$walls"
check checkpoint base runtime "$walls"
check diag base runtime
check operators
check window
check table base
check connectors/kafka
check connectors/file
check connectors/nexmark
check sql base
defs=
check tools

if [ "$status" = 0 ]; then
    echo "cppcheck: no findings"
else
    echo "cppcheck: findings above (mend them, or suppress a false positive at its line with the reason)" >&2
fi
exit "$status"
