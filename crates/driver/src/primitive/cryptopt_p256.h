/* cryptopt_p256: P-256 ECDH built from code optimized and proved by cryptopt.
 * out = the x-coordinate of priv·pub, 32 bytes big-endian (as OpenSSL's ECDH derives
 * it). priv: 32 bytes big-endian, in [1, n-1]; pub: SEC1 uncompressed (04 || x || y,
 * or the hybrid 06/07 form OpenSSL also reads), on the curve. Returns 0, or -1 with out
 * all zero when pub is invalid or priv out of range. Requires x86-64 with BMI2 and ADX.
 * Constant time in priv. */
#ifndef CRYPTOPT_P256_H
#define CRYPTOPT_P256_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int cryptopt_p256_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[65]);
#ifdef __cplusplus
}
#endif
#endif
