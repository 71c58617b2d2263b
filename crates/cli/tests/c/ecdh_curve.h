/* The curve an ECDH test is built for (-DP256 or -DSECP256K1): the library's header and
 * function, p and the group order n in hex (big-endian), and secp256k1's lambda. */
#ifndef CRYPTOPT_TEST_ECDH_CURVE_H
#define CRYPTOPT_TEST_ECDH_CURVE_H
#if defined(P256)
#include "cryptopt_p256.h"
#define ECDH cryptopt_p256_ecdh
#define P_HEX "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
#define N_HEX "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
#elif defined(SECP256K1)
#include "cryptopt_secp256k1.h"
#define ECDH cryptopt_secp256k1_ecdh
#define P_HEX "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"
#define N_HEX "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
#else
#error "build with -DP256 or -DSECP256K1"
#endif
/* secp256k1's endomorphism eigenvalue (a GLV edge case; below either curve's n). */
#define LAMBDA_HEX "5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72"
#endif
