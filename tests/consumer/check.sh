#!/bin/sh
# The consumer test: weir used from outside its tree, as a user would.
#
#   check.sh installed BUILD WORK   cmake --install BUILD --prefix WORK/prefix,
#                                   then build against that prefix
#   check.sh system WORK            build against weir installed in the system
#                                   (the Debian packages; .ci/run)
#
# Against the prefix (or the system) it builds consumer.c and runs it, its
# output compared with expected.out:
#   1. with pkg-config (cc $(pkg-config --cflags --libs weir)), shared;
#   2. with pkg-config's weir-static (cc $(pkg-config --cflags --libs
#      weir-static), the README's command), linked with libweir.a (no
#      libweir.so needed);
#   3. with find_package(weir) and weir::weir (tests/consumer/CMakeLists.txt);
#   4. with find_package(weir) and weir::weir_static (static/);
# with the README's example pipeline built and run the same way as 1., and
# checks that the installed tree has every public header, the `weir`
# command (--version), the viewer, the docs and the CMake and pkg-config
# files, and that no compile line of the consumer carries weir's own flags
# (-D_GNU_SOURCE, its warnings). consumer.c (map -> window) is a program of
# libweir alone: no link line of it names librdkafka, jansson or libcsv, and
# neither its NEEDED entries nor what it loads (ldd) hold them. Then
# consumer_kafka.c, the same pipeline through a topic of weir/kafka.h's mock
# cluster, is built against libweir-kafka and run (5.): with pkg-config's
# weir-kafka and weir-kafka-static, and find_package(weir)'s weir::weir-kafka
# and weir::weir-kafka-static (kafka/). consumer_nexmark.c counts Nexmark
# events of libweir-nexmark (6.): with pkg-config's weir-nexmark and
# weir-nexmark-static. In the `installed` mode it also
# configures and builds (7.) a project that has weir as add_subdirectory
# (subdir/). Every compile is -Wall -Wextra -Wpedantic -Werror. Bounded: a
# few small compiles and the library's sources once at -O0 for 7., under a
# minute on two cores (ctest's limit is 300 s).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
mode=$1
if [ "$mode" = installed ]; then
    build=$2
    work=$3
elif [ "$mode" = system ]; then
    work=$2
else
    echo "usage: check.sh installed BUILD WORK | check.sh system WORK" >&2
    exit 2
fi
rm -rf "$work"
mkdir -p "$work"
cc=${CC:-cc}
strict="-std=c11 -Wall -Wextra -Wpedantic -Werror"

fail() {
    echo "consumer: $*" >&2
    exit 1
}

# Runs a consumer binary; its output, sorted, must be expected.out.
run() {
    what=$1
    bin=$2
    "$bin" >"$work/$what.out" 2>"$work/$what.err" || {
        cat "$work/$what.err" >&2
        fail "$what: the consumer failed (exit $?)"
    }
    # a window's results for one watermark may come in any order: sorted
    LC_ALL=C sort "$work/$what.out" >"$work/$what.sorted"
    diff -u "$here/expected.out" "$work/$what.sorted" >&2 || fail "$what: output differs from expected.out"
    echo "consumer: $what: ok"
}

# None of weir's own flags may reach a consumer's compile line.
no_weir_flags() {
    what=$1
    file=$2
    for flag in -D_GNU_SOURCE -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wno-unused-parameter \
        -fno-semantic-interposition -DWEIR_BUILDING -fsanitize; do
        if grep -q -e "$flag" "$file"; then
            fail "$what: weir's own flag $flag reaches the consumer's compile line ($file)"
        fi
    done
}

if [ "$mode" = installed ]; then
    prefix=$work/prefix
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
    export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
    cmake_prefix="-DCMAKE_PREFIX_PATH=$prefix"
    weir_cmd=$prefix/bin/weir
else
    prefix=/usr
    cmake_prefix=
    weir_cmd=weir
fi

# A program of map -> window links no connector: neither its link line
# (a file of it, or its flags) names librdkafka, jansson or libcsv, nor
# does the binary NEED them or load them through libweir (ldd).
no_connector_libs() {
    what=$1
    bin=$2
    line=${3:-}
    if [ -n "$line" ] && grep -qE -e '-l(rdkafka|jansson|csv)\b|lib(rdkafka|jansson|csv)\.(so|a)' "$line"; then
        fail "$what: the link line names a connector's library ($line): $(cat "$line")"
    fi
    if readelf -d "$bin" | grep -E 'NEEDED' | grep -qE 'lib(rdkafka|jansson|csv|weir-kafka|weir-file|weir-nexmark)\.so'; then
        fail "$what: the program NEEDs a connector's library: $(readelf -d "$bin" | grep NEEDED)"
    fi
    if ldd "$bin" | grep -qE 'lib(rdkafka|jansson|csv)\.so'; then
        fail "$what: the program loads a connector's library: $(ldd "$bin")"
    fi
}

# What was installed.
incdir=$(pkg-config --variable=includedir weir) || fail "pkg-config does not know weir"
libdir=$(pkg-config --variable=libdir weir)
for h in "$src"/include/weir.h "$src"/include/weir/*.h; do
    rel=${h#"$src"/include/}
    cmp -s "$h" "$incdir/$rel" || fail "$incdir/$rel is missing or differs from include/$rel"
done
for f in "$libdir/libweir.a" "$libdir/libweir.so" "$libdir/pkgconfig/weir.pc" \
    "$libdir/pkgconfig/weir-static.pc" "$libdir/cmake/weir/weirConfig.cmake" \
    "$libdir/libweir-kafka.a" "$libdir/libweir-kafka.so" "$libdir/pkgconfig/weir-kafka.pc" \
    "$libdir/pkgconfig/weir-kafka-static.pc" "$libdir/libweir-file.a" "$libdir/libweir-file.so" \
    "$libdir/pkgconfig/weir-file.pc" "$libdir/pkgconfig/weir-file-static.pc" \
    "$libdir/libweir-nexmark.a" "$libdir/libweir-nexmark.so" "$libdir/pkgconfig/weir-nexmark.pc" \
    "$libdir/pkgconfig/weir-nexmark-static.pc" \
    "$libdir/cmake/weir/weirConfigVersion.cmake" "$prefix/share/weir/viewer/index.html" \
    "$prefix/share/doc/weir/SEMANTICS.md" "$prefix/share/doc/weir/CAPTURE.md"; do
    [ -f "$f" ] || fail "$f was not installed"
done
soname=$(readelf -d "$libdir/libweir.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
abi=$(sed -n 's/^#define WEIR_ABI_VERSION \([0-9]*\)$/\1/p' "$src/include/weir/version.h")
[ "$soname" = "libweir.so.$abi" ] || fail "libweir.so's soname is '$soname', not libweir.so.$abi"
for connector in kafka file nexmark; do
    s=$(readelf -d "$libdir/libweir-$connector.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$s" = "libweir-$connector.so.$abi" ] || fail "libweir-$connector.so's soname is '$s', not libweir-$connector.so.$abi"
done
version=$(pkg-config --modversion weir)
[ "$("$weir_cmd" --version)" = "weir $version" ] || fail "'$weir_cmd --version' does not say weir $version"
echo "consumer: the installed tree: ok (weir $version, $soname)"

# 1. pkg-config, shared.
# shellcheck disable=SC2046
$cc $strict "$here/consumer.c" $(pkg-config --cflags --libs weir) -Wl,-rpath,"$libdir" -o "$work/pc-shared"
pkg-config --cflags weir >"$work/pc-cflags"
no_weir_flags "pkg-config" "$work/pc-cflags"
# (also what a static link of libweir, Libs.private, would add)
pkg-config --libs --static weir >"$work/pc-libs"
no_connector_libs "pkg-config" "$work/pc-shared" "$work/pc-libs"
run pkg-config "$work/pc-shared"

# The README's example pipeline (its first C block) builds without a
# warning and runs; its CMakeLists.txt is this directory's.
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' "$src/README.md" >"$work/readme.c"
[ -s "$work/readme.c" ] || fail "README.md has no C block"
# shellcheck disable=SC2046
$cc $strict "$work/readme.c" $(pkg-config --cflags --libs weir) -Wl,-rpath,"$libdir" -o "$work/readme" ||
    fail "README.md's example does not build warning-free"
"$work/readme" >"$work/readme.out" || fail "README.md's example failed"
awk '/^```cmake$/ { f = 1; next } /^```$/ { if (f) exit } f' "$src/README.md" >"$work/readme.cmake"
diff -u "$here/CMakeLists.txt" "$work/readme.cmake" >&2 ||
    fail "README.md's CMakeLists.txt differs from tests/consumer/CMakeLists.txt"
echo "consumer: README.md's example and CMakeLists.txt: ok"

# 2. pkg-config, weir-static: its Libs name libweir.a and what it needs;
#    the program needs no libweir.so (none on its search path either: no
#    -rpath).
# shellcheck disable=SC2046
$cc $strict "$here/consumer.c" $(pkg-config --cflags --libs weir-static) -o "$work/pc-static" ||
    fail "pkg-config weir-static: the link failed"
if readelf -d "$work/pc-static" | grep -q 'libweir'; then
    fail "pkg-config weir-static: the program still needs libweir.so"
fi
pkg-config --libs weir-static >"$work/pc-static-libs"
no_connector_libs "pkg-config weir-static" "$work/pc-static" "$work/pc-static-libs"
run pkg-config-static "$work/pc-static"

# 3. and 4. find_package(weir).
for variant in shared static; do
    dir=$here
    [ "$variant" = static ] && dir=$here/static
    # shellcheck disable=SC2086
    cmake -S "$dir" -B "$work/cmake-$variant" $cmake_prefix -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
        >"$work/cmake-$variant.log" 2>&1 || { cat "$work/cmake-$variant.log" >&2; fail "find_package(weir), $variant: configure failed"; }
    cmake --build "$work/cmake-$variant" >>"$work/cmake-$variant.log" 2>&1 || { cat "$work/cmake-$variant.log" >&2; fail "find_package(weir), $variant: build failed"; }
    no_weir_flags "find_package $variant" "$work/cmake-$variant/compile_commands.json"
    no_connector_libs "find_package $variant" "$work/cmake-$variant/consumer" \
        "$work/cmake-$variant/CMakeFiles/consumer.dir/link.txt"
    run "find_package-$variant" "$work/cmake-$variant/consumer"
done

# 5. The Kafka consumer, against libweir-kafka: shared (it NEEDs
#    libweir-kafka.so and libweir.so, and librdkafka comes through the
#    first) and static (neither).
kafka_shared() {
    what=$1
    bin=$2
    readelf -d "$bin" | grep NEEDED >"$work/$what.needed"
    grep -q "libweir-kafka\.so\.$abi" "$work/$what.needed" || fail "$what: the program does not NEED libweir-kafka.so.$abi"
    grep -q "libweir\.so\.$abi" "$work/$what.needed" || fail "$what: the program does not NEED libweir.so.$abi"
    ldd "$bin" | grep -q 'librdkafka\.so' || fail "$what: librdkafka is not loaded through libweir-kafka"
    run "$what" "$bin"
}
kafka_static() {
    what=$1
    bin=$2
    if readelf -d "$bin" | grep -q 'libweir'; then
        fail "$what: the program still needs a libweir shared library"
    fi
    run "$what" "$bin"
}
# shellcheck disable=SC2046
$cc $strict "$here/consumer_kafka.c" $(pkg-config --cflags --libs weir-kafka) -Wl,-rpath,"$libdir" \
    -o "$work/pc-kafka" || fail "pkg-config weir-kafka: the build failed"
pkg-config --cflags weir-kafka >"$work/pc-kafka-cflags"
no_weir_flags "pkg-config weir-kafka" "$work/pc-kafka-cflags"
kafka_shared pkg-config-kafka "$work/pc-kafka"
# shellcheck disable=SC2046
$cc $strict "$here/consumer_kafka.c" $(pkg-config --cflags --libs weir-kafka-static) \
    -o "$work/pc-kafka-static" || fail "pkg-config weir-kafka-static: the link failed"
kafka_static pkg-config-kafka-static "$work/pc-kafka-static"
# shellcheck disable=SC2086
cmake -S "$here/kafka" -B "$work/cmake-kafka" $cmake_prefix -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$work/cmake-kafka.log" 2>&1 || { cat "$work/cmake-kafka.log" >&2; fail "find_package(weir), weir::weir-kafka: configure failed"; }
cmake --build "$work/cmake-kafka" >>"$work/cmake-kafka.log" 2>&1 || { cat "$work/cmake-kafka.log" >&2; fail "find_package(weir), weir::weir-kafka: build failed"; }
no_weir_flags "find_package weir-kafka" "$work/cmake-kafka/compile_commands.json"
kafka_shared find_package-kafka "$work/cmake-kafka/consumer_kafka"
kafka_static find_package-kafka-static "$work/cmake-kafka/consumer_kafka_static"

# 6. The Nexmark consumer, against libweir-nexmark: shared (it NEEDs
#    libweir-nexmark.so) and static (no libweir shared library).
nexmark_run() {
    what=$1
    bin=$2
    "$bin" >"$work/$what.out" 2>"$work/$what.err" || {
        cat "$work/$what.err" >&2
        fail "$what: the consumer failed"
    }
    [ "$(cat "$work/$what.out")" = "persons 20, auctions 60, bids 920" ] ||
        fail "$what: it printed '$(cat "$work/$what.out")', not 'persons 20, auctions 60, bids 920'"
    echo "consumer: $what: ok"
}
# shellcheck disable=SC2046
$cc $strict "$here/consumer_nexmark.c" $(pkg-config --cflags --libs weir-nexmark) \
    -Wl,-rpath,"$libdir" -o "$work/pc-nexmark" || fail "pkg-config weir-nexmark: the build failed"
readelf -d "$work/pc-nexmark" | grep -q "libweir-nexmark\.so\.$abi" ||
    fail "pkg-config weir-nexmark: the program does not NEED libweir-nexmark.so.$abi"
nexmark_run pkg-config-nexmark "$work/pc-nexmark"
# shellcheck disable=SC2046
$cc $strict "$here/consumer_nexmark.c" $(pkg-config --cflags --libs weir-nexmark-static) \
    -o "$work/pc-nexmark-static" || fail "pkg-config weir-nexmark-static: the link failed"
if readelf -d "$work/pc-nexmark-static" | grep -q 'libweir'; then
    fail "pkg-config weir-nexmark-static: the program still needs a libweir shared library"
fi
nexmark_run pkg-config-nexmark-static "$work/pc-nexmark-static"

# 7. add_subdirectory(weir): weir's options default to the library alone
#    (no Criterion, no Node.js), and its flags stay inside it.
if [ "$mode" = installed ]; then
    cmake -S "$here/subdir" -B "$work/subdir" -DWEIR_SOURCE="$src" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
        >"$work/subdir.log" 2>&1 || { cat "$work/subdir.log" >&2; fail "add_subdirectory(weir): configure failed"; }
    for opt in WEIR_BUILD_TESTS WEIR_BUILD_EXAMPLES WEIR_BUILD_BENCH WEIR_BUILD_TOOLS; do
        grep -q "^$opt:BOOL=OFF" "$work/subdir/CMakeCache.txt" || fail "add_subdirectory(weir): $opt is not OFF by default"
    done
    # the consumer's own compile line only
    grep '"command":.*consumer\.c\.o' "$work/subdir/compile_commands.json" >"$work/subdir-consumer-flags" || true
    [ -s "$work/subdir-consumer-flags" ] || fail "add_subdirectory(weir): no compile line for consumer.c"
    no_weir_flags "add_subdirectory" "$work/subdir-consumer-flags"
    cmake --build "$work/subdir" --target consumer -j 2 >>"$work/subdir.log" 2>&1 || { cat "$work/subdir.log" >&2; fail "add_subdirectory(weir): build failed"; }
    no_connector_libs "add_subdirectory" "$work/subdir/consumer" "$work/subdir/CMakeFiles/consumer.dir/link.txt"
    run add_subdirectory "$work/subdir/consumer"
fi
echo "consumer: all ok"
