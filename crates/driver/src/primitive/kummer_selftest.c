/* The self-test `cryptopt primitive kummer` runs on the library before it writes it:
 * the order of the paper's base point B ([l]B is the identity, [l+1]B = B, for the prime
 * l of the Jacobian order 16 l), Diffie-Hellman agreement on fixed key pairs, and
 * rejection of encodings that are not points. Prints `ok` and exits 0, or names the
 * first failure and exits 1. */
#include <stdio.h>
#include <string.h>

#include "cryptopt_kummer.h"

/* l, little-endian (section 2.6 of "Kummer strikes back"). */
static const uint8_t ELL[32] = {
    0x43, 0xfa, 0xf3, 0x7b, 0xb4, 0xf4, 0x8c, 0xb8, 0x00, 0xab, 0x5e, 0x06, 0x36, 0x80, 0x3d, 0xad,
    0x94, 0x52, 0xc7, 0x20, 0x98, 0xd6, 0x34, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04};

/* The encodings of the identity (11/-22, 11/-19, 11/-3) and of B (6, ..., 1). */
static const uint8_t IDENTITY[48] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f,
    0xae, 0xa1, 0xbc, 0x86, 0xf2, 0x1a, 0xca, 0x6b, 0x28, 0xaf, 0xa1, 0xbc, 0x86, 0xf2, 0x1a, 0x4a,
    0x51, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};
static const uint8_t BASE[48] = {
    6,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0x68, 0x30, 0x1e, 0x6b, 0x4d, 0xaf, 0xc7, 0x56, 0x9d, 0x1f, 0xa7, 0xf8, 0x71, 0x39, 0x37, 0x6b,
    1,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0};

static int fail(const char *what) {
    printf("%s\n", what);
    return 1;
}

int main(void) {
    uint8_t sk[32], pk[48], a[48], b[48], ska[32], skb[32], pka[48], pkb[48];
    memcpy(sk, ELL, 32);
    if (cryptopt_kummer_keypair(pk, sk) != 0 || memcmp(pk, IDENTITY, 48) != 0)
        return fail("[l]B is not the identity");
    sk[0] += 1; /* l + 1: the low byte 0x43 does not carry */
    if (cryptopt_kummer_keypair(pk, sk) != 0 || memcmp(pk, BASE, 48) != 0)
        return fail("[l+1]B is not B");
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 32; i++) {
            ska[i] = (uint8_t)(37 * i + 11 * k + 1);
            skb[i] = (uint8_t)(91 * i + 7 * k + 200);
        }
        if (cryptopt_kummer_keypair(pka, ska) != 0 || cryptopt_kummer_keypair(pkb, skb) != 0)
            return fail("a key pair was refused");
        if (cryptopt_kummer(a, ska, pkb) != 0 || cryptopt_kummer(b, skb, pka) != 0)
            return fail("a public key was refused");
        if (memcmp(a, b, 48) != 0) return fail("the two sides of a DH disagree");
        /* A public key with one bit flipped is not a point. */
        pka[20] ^= 4;
        if (cryptopt_kummer(a, skb, pka) != -1) return fail("an edited public key was accepted");
    }
    memset(pk, 0xff, 48);
    if (cryptopt_kummer(a, ska, pk) != -1) return fail("a non-canonical encoding was accepted");
    printf("ok\n");
    return 0;
}
