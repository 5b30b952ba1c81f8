#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: the fuzz targets with the platform's compiler, flags and engine.
#
# Uses $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $OUT (and $SRC/$WORK when set), as
# https://google.github.io/oss-fuzz/getting-started/new-project-guide/ describes. Copies each
# target with its .dict and .options into $OUT and zips its seed corpus (plus regressions)
# as <thing>_fuzzer_seed_corpus.zip when `zip` exists.
# Locally: CC=clang CXX=clang++ CXXFLAGS="-fsanitize=address,fuzzer-no-link" \
#          LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/build.sh
root="$(cd "$(dirname "$0")/.." && pwd)"
: "${CC:=clang}" "${CXX:=clang++}" "${CFLAGS:=}" "${CXXFLAGS:=}" "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?set OUT to the output directory}"
build="${WORK:-$(mktemp -d)}/breakout-fuzz-build"
mkdir -p "$OUT" "$build"

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBREAKOUT_BUILD_FUZZERS=ON -DBREAKOUT_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DBREAKOUT_BUILD_TESTS=OFF -DBREAKOUT_BUILD_BENCH=OFF
cmake --build "$build" --target fuzzers -j "$(nproc)"

for src in "$root"/fuzz/*_fuzzer.cc; do
  name="$(basename "$src" .cc)"
  [ "$name" = live_fuzzer ] && continue  # needs a real sandbox on the host (docs/fuzzing.md), not for OSS-Fuzz
  thing="${name%_fuzzer}"
  cp "$build/fuzz/$name" "$OUT/"
  for extra in dict options; do
    [ -f "$root/fuzz/$name.$extra" ] && cp "$root/fuzz/$name.$extra" "$OUT/"
  done
  if command -v zip >/dev/null; then
    rm -f "$OUT/${name}_seed_corpus.zip"
    dirs=("$root/fuzz/corpus/$thing")
    [ -d "$root/fuzz/regressions/$thing" ] && dirs+=("$root/fuzz/regressions/$thing")
    zip -q -j -r "$OUT/${name}_seed_corpus.zip" "${dirs[@]}"
  else
    echo "build.sh: zip not found, skipping ${name}_seed_corpus.zip" >&2
  fi
done
