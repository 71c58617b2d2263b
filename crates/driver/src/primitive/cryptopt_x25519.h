/* cryptopt_x25519: X25519 (RFC 7748) built from code optimized and proved by cryptopt.
 * Returns 0, or -1 when the shared secret is all zero (a small-order point), as
 * libsodium's crypto_scalarmult. Requires x86-64 with BMI2 and ADX. Constant time. */
#ifndef CRYPTOPT_X25519_H
#define CRYPTOPT_X25519_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int cryptopt_x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
#ifdef __cplusplus
}
#endif
#endif
