#!/usr/bin/env bash
# Times cryptopt's programs against s2n-bignum's verified Montgomery multiplications and
# squares, side by side (benchmarks only; see harness.c). Usage:
#   bench/s2n/run.sh OUT_DIR [S2N_DIR]
# OUT_DIR holds cryptopt's results, OUT_DIR/<fiat name>/<fiat name>.asm (from `cryptopt
# bench --functions ...` or `optimize`); S2N_DIR defaults to ../shared/anchors/s2n-bignum.
# Each function found is paired with its s2n-bignum routine, built, checked to agree on
# 10,000 inputs below p, and timed on the first CPU this process may use.
set -euo pipefail
out=${1:?usage: run.sh OUT_DIR [S2N_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
s2n=${2:-$here/../../../shared/anchors/s2n-bignum}
[ -d "$s2n/x86" ] || { echo "run.sh: no s2n-bignum sources at $s2n" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
p256=ffffffff00000001000000000000000000000000ffffffffffffffffffffffff
p384=fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff
k1=fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (cpu $cpu); counter: tsc (lfence;rdtsc;lfence)"
while read -r name routine n p; do
  asm="$out/$name/$name.asm"
  [ -f "$asm" ] || continue
  nasm -f elf64 "$asm" -o "$tmp/ours.o"
  objcopy --redefine-sym "$name=ours" "$tmp/ours.o"
  gcc -E -P -I "$s2n/include" "$s2n/x86/$routine.S" > "$tmp/theirs.s"
  gcc -c "$tmp/theirs.s" -o "$tmp/theirs.o"
  objcopy --redefine-sym "$(basename "$routine")=theirs" "$tmp/theirs.o"
  gcc -O2 -DN="$n" "$here/harness.c" "$tmp/ours.o" "$tmp/theirs.o" -o "$tmp/h"
  taskset -c "$cpu" "$tmp/h" "$name" "$p"
done <<LIST
fiat_p256_mul p256/bignum_montmul_p256 4 $p256
fiat_p256_square p256/bignum_montsqr_p256 4 $p256
fiat_p384_mul p384/bignum_montmul_p384 6 $p384
fiat_p384_square p384/bignum_montsqr_p384 6 $p384
fiat_secp256k1_montgomery_mul secp256k1/bignum_montmul_p256k1 4 $k1
fiat_secp256k1_montgomery_square secp256k1/bignum_montsqr_p256k1 4 $k1
LIST
