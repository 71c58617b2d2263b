/* cryptopt_kummer: Diffie-Hellman on the Gaudry-Schost Kummer surface over 2^127 - 1
 * ("Kummer strikes back", Bernstein-Chuengsatiansup-Lange-Schwabe), built from code
 * optimized and proved by cryptopt. SUPERCOP crypto_dh-style: 32-byte secret scalars,
 * 48-byte public points (x/y, x/z, x/t), three canonical little-endian 16-byte field
 * elements. A scalar's low 251 bits are used (the base point's order is below 2^251;
 * bits 251 to 255 are ignored, as X25519 ignores bit 255). Returns 0, or -1 when `pk` is not the encoding of a point of the surface
 * (`out` is then all zero). Requires x86-64 with BMI2 and ADX. Constant time in the
 * secret scalar. */
#ifndef CRYPTOPT_KUMMER_H
#define CRYPTOPT_KUMMER_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int cryptopt_kummer_keypair(uint8_t pk[48], const uint8_t sk[32]);
int cryptopt_kummer(uint8_t out[48], const uint8_t sk[32], const uint8_t pk[48]);
#ifdef __cplusplus
}
#endif
#endif
