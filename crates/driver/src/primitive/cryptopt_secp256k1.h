/* cryptopt_secp256k1: secp256k1 ECDH built from code optimized and proved by cryptopt.
 * out = SHA-256((0x02 | y's parity) || x) of priv·pub, byte for byte libsecp256k1's
 * secp256k1_ecdh with its default hash function. priv: 32 bytes big-endian, in
 * [1, n-1]; pub: SEC1 uncompressed (04 || x || y, or the hybrid 06/07 form libsecp256k1
 * also reads), on the curve. Returns 0, or -1 with out all zero when pub is invalid or
 * priv out of range. Requires x86-64 with BMI2 and ADX. Constant time in priv. */
#ifndef CRYPTOPT_SECP256K1_H
#define CRYPTOPT_SECP256K1_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int cryptopt_secp256k1_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[65]);
#ifdef __cplusplus
}
#endif
#endif
