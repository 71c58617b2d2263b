#!/usr/bin/env bash
# How much one run's outcome depends on its seed (issue 64, item 4): `cryptopt bench`
# once per seed, then the other seeds' programs measured side by side with the first
# seed's in one `bench --reuse` run (`--compare seed<N>=...`), so every ratio comes from
# interleaved measurements of one run. Usage:
#   bench/seeds/run.sh OUT_DIR [SEEDS] [-- BENCH_ARGS...]
# SEEDS is a comma-separated list (default 1,2,3); BENCH_ARGS default to
# `--paper --optimize-for throughput` (add `--fiat-json DIR` when $CRYPTOPT_FIAT_JSON is
# not set). OUT_DIR/seed<N>/ holds each seed's run (a finished one is not run again),
# OUT_DIR/side-by-side/ the comparison: its bench.csv has a `seed<N>` column for each
# other seed (docs/results/render.py turns that into the seeds table). Only the programs
# at OUT_DIR/seed<N>/<function>/ are compared: the throughput ones (the latency winners of
# `--optimize-for both` sit one folder deeper and are left out).
set -euo pipefail
out=${1:?usage: run.sh OUT_DIR [SEEDS] [-- BENCH_ARGS...]}
shift
seeds=1,2,3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  seeds=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--paper --optimize-for throughput)
cryptopt=${CRYPTOPT:-cryptopt}
command -v "$cryptopt" >/dev/null || { echo "run.sh: no \`$cryptopt\` (set CRYPTOPT)" >&2; exit 2; }
IFS=, read -r -a list <<<"$seeds"
[ ${#list[@]} -ge 2 ] || { echo "run.sh: SEEDS names fewer than two seeds: $seeds" >&2; exit 2; }
for s in "${list[@]}"; do
  [[ $s =~ ^[0-9]+$ ]] || { echo "run.sh: seed \`$s\` is not a number" >&2; exit 2; }
done
mkdir -p "$out"
for s in "${list[@]}"; do
  dir="$out/seed$s"
  if [ -f "$dir/bench.csv" ]; then
    echo "seed $s: reusing $dir"
    continue
  fi
  echo "seed $s: $cryptopt bench ${args[*]} --seed $s --out $dir"
  "$cryptopt" bench "${args[@]}" --seed "$s" --out "$dir" >"$out/seed$s.log" 2>&1 ||
    { echo "run.sh: seed $s failed, see $out/seed$s.log" >&2; exit 1; }
done
# Every other seed's programs in one file each (the checker proves each before timing).
compare=()
for s in "${list[@]:1}"; do
  cat "$out/seed$s"/*/*.asm >"$out/seed$s.asm"
  compare+=(--compare "seed$s=$out/seed$s.asm")
done
first=${list[0]}
rm -rf "$out/side-by-side"
cp -r "$out/seed$first" "$out/side-by-side"
"$cryptopt" bench "${args[@]}" --reuse --seed "$first" --out "$out/side-by-side" "${compare[@]}"
