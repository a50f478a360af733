#!/bin/bash -eu
# .clusterfuzzlite/build.sh: builds callsign's fuzz targets the OSS-Fuzz way: every source with
# $CC $CFLAGS, each target linked with $LIB_FUZZING_ENGINE into $OUT, with its seed corpus
# ($OUT/<target>_seed_corpus.zip), dictionary and options. Works in the ClusterFuzzLite image
# (cJSON from $SRC/cJSON and OpenSSL 3 from /usr/local/openssl3, linked statically) and on a
# workstation with the -dev packages, e.g.:
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link -g -O1" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=/tmp/out bash .clusterfuzzlite/build.sh
: "${CC:=clang}"
: "${CFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?set OUT to the output directory}"

# The repository: the working directory in the image, else the one this script lives in.
if [ ! -f fuzz/fuzz_properties.c ]; then
  if [ -n "${SRC:-}" ] && [ -f "$SRC/callsign/fuzz/fuzz_properties.c" ]; then
    cd "$SRC/callsign"
  else
    cd "$(dirname "$0")/.."
  fi
fi
mkdir -p "$OUT"
WORKDIR=$(mktemp -d "${WORK:-/tmp}/callsign-fuzz.XXXXXX")
trap 'rm -rf "$WORKDIR"' EXIT

FLAGS="-std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I."
LIBS=""
static_or_dynamic() { # prefers lib$1.a when the toolchain has it
  local a
  a=$($CC -print-file-name="lib$1.a")
  if [ -f "$a" ]; then echo "$a"; else echo "-l$1"; fi
}

# cJSON: from source when present (instrumented like the rest), else the system library.
OBJS=()
if [ -f "${SRC:-/nonexistent}/cJSON/cJSON.c" ]; then
  mkdir -p "$WORKDIR/include/cjson"
  cp "$SRC/cJSON/cJSON.h" "$WORKDIR/include/cjson/"
  FLAGS="$FLAGS -I$WORKDIR/include"
  $CC $CFLAGS -std=c11 -D_POSIX_C_SOURCE=200809L -c "$SRC/cJSON/cJSON.c" -o "$WORKDIR/cJSON.o"
  OBJS+=("$WORKDIR/cJSON.o")
else
  FLAGS="$FLAGS $(pkg-config --cflags libcjson 2>/dev/null || echo -I/usr/include/cjson)"
  LIBS="$LIBS -lcjson"
fi
# OpenSSL 3: the image's static build, else the system's (static when available).
if [ -f /usr/local/openssl3/lib/libcrypto.a ]; then
  FLAGS="$FLAGS -I/usr/local/openssl3/include"
  LIBS="$LIBS /usr/local/openssl3/lib/libcrypto.a"
else
  LIBS="$LIBS $(static_or_dynamic crypto)"
fi
LIBS="$LIBS $(static_or_dynamic pcre2-8) -lm -lpthread -ldl"

# The library: every layer but the command-line entry point, in an archive, so a target links
# only what it uses (the live-probe code and its libcurl are never pulled in).
for src in core/*.c providers/*.c generators/*.c impls/*.c reports/*.c harness/*.c; do
  [ "$src" = harness/main.c ] && continue
  obj="$WORKDIR/obj/${src%.c}.o"
  mkdir -p "$(dirname "$obj")"
  $CC $CFLAGS $FLAGS -c "$src" -o "$obj" &
done
wait
ar rcs "$WORKDIR/libcallsign.a" $(find "$WORKDIR/obj" -name '*.o')

for target in fuzz_properties fuzz_reader; do
  $CC $CFLAGS $FLAGS -c "fuzz/$target.c" -o "$WORKDIR/$target.o"
  $CC $CFLAGS "$WORKDIR/$target.o" "${OBJS[@]}" "$WORKDIR/libcallsign.a" $LIB_FUZZING_ENGINE $LIBS -o "$OUT/$target"
done

# Seeds, dictionary, options.
zip_dir() { # $1: directory, $2: zip file
  rm -f "$2"
  if command -v zip >/dev/null 2>&1; then
    (cd "$1" && zip -q -r "$2" .)
  else
    python3 -c 'import os,sys,zipfile
z=zipfile.ZipFile(sys.argv[2],"w")
[z.write(os.path.join(sys.argv[1],f),f) for f in sorted(os.listdir(sys.argv[1]))]' "$1" "$2"
  fi
}
zip_dir "$PWD/fuzz/seeds/properties" "$OUT/fuzz_properties_seed_corpus.zip"
zip_dir "$PWD/fuzz/seeds/reader" "$OUT/fuzz_reader_seed_corpus.zip"
cp fuzz/ids.dict "$OUT/fuzz_reader.dict"
printf '[libfuzzer]\nmax_len = 512\n' >"$OUT/fuzz_properties.options"
printf '[libfuzzer]\ndict = fuzz_reader.dict\nmax_len = 4096\n' >"$OUT/fuzz_reader.options"
echo "callsign: built $OUT/fuzz_properties and $OUT/fuzz_reader"
