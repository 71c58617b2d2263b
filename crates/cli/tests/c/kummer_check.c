/* Checks libcryptopt_kummer (the Kummer-surface DH of "Kummer strikes back"). Modes, each
 * printing one line or the first failure (exit 1):
 *   dh N        N random key pairs: both sides derive the same secret
 *   order       [l]B is the identity, [l+1]B = B, and [l+1 + 2^251]B = B (B the paper's
 *               base point, l the prime of the Jacobian order 16 l; the scalar's bits
 *               251 to 255 are ignored)
 *   reject N    N random canonical triples, N valid public keys with one bit flipped,
 *               and the non-canonical and zero encodings: how many were accepted
 *   ladder      reads lines `R0 R1 D SWAP` (hex words, 8 + 8 + 6 + 1) from stdin and
 *               prints the ladder step's two output points (16 hex words) per line, for
 *               the test's independent model */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cryptopt_kummer.h"

#include "inputs.h"

typedef unsigned char fiat_uint1;
void cryptopt_kummer_ladderstep(uint64_t out1[8], uint64_t out2[8], const uint64_t arg1[8],
                                const uint64_t arg2[8], const uint64_t arg3[6],
                                fiat_uint1 arg4);

static const char *ELL =
    "43faf37bb4f48cb800ab5e0636803dad9452c72098d634030000000000000004";
static const char *ELL1_HIGH = /* l + 1 + 2^251 + 2^255 */
    "44faf37bb4f48cb800ab5e0636803dad9452c72098d63403000000000000008c";
static const char *IDENTITY =
    "ffffffffffffffffffffffffffffff3faea1bc86f21aca6b28afa1bc86f21a4a"
    "51555555555555555555555555555555";
static const char *BASE =
    "0600000000000000000000000000000068301e6b4dafc7569d1fa7f87139376b"
    "01000000000000000000000000000000";

static int dh(long n) {
    uint8_t ska[32], skb[32], pka[48], pkb[48], a[48], b[48];
    for (long i = 0; i < n; i++) {
        random_bytes(ska, 32);
        random_bytes(skb, 32);
        if (cryptopt_kummer_keypair(pka, ska) || cryptopt_kummer_keypair(pkb, skb) ||
            cryptopt_kummer(a, ska, pkb) || cryptopt_kummer(b, skb, pka)) {
            printf("dh: key pair %ld refused\n", i);
            return 1;
        }
        if (memcmp(a, b, 48) != 0) {
            printf("dh: key pair %ld disagrees\n", i);
            return 1;
        }
    }
    printf("dh: %ld agree\n", n);
    return 0;
}

static int order(void) {
    uint8_t sk[32], pk[48], want[48];
    unhex(sk, ELL, 32);
    unhex(want, IDENTITY, 48);
    if (cryptopt_kummer_keypair(pk, sk) || memcmp(pk, want, 48)) {
        printf("order: [l]B is not the identity\n");
        return 1;
    }
    sk[0] += 1;
    unhex(want, BASE, 48);
    if (cryptopt_kummer_keypair(pk, sk) || memcmp(pk, want, 48)) {
        printf("order: [l+1]B is not B\n");
        return 1;
    }
    unhex(sk, ELL1_HIGH, 32);
    if (cryptopt_kummer_keypair(pk, sk) || memcmp(pk, want, 48)) {
        printf("order: bits 251 to 255 of the scalar were not ignored\n");
        return 1;
    }
    printf("order: ok\n");
    return 0;
}

static int reject(long n) {
    uint8_t sk[32], pk[48], out[48];
    long random_ok = 0, edited_ok = 0, bad_ok = 0, bad = 0;
    random_bytes(sk, 32);
    for (long i = 0; i < n; i++) {
        random_bytes(pk, 48);
        for (int j = 0; j < 3; j++) pk[16 * j + 15] &= 0x3f; /* canonical */
        random_ok += cryptopt_kummer(out, sk, pk) == 0;
        random_bytes(sk, 32);
        cryptopt_kummer_keypair(pk, sk);
        pk[next() % 47] ^= (uint8_t)(1u << (next() % 8)); /* below the last byte's top bit */
        edited_ok += cryptopt_kummer(out, sk, pk) == 0;
    }
    /* Non-canonical (p, p + 1, 2^127 and up, all ones) and zero coordinates, each in every
     * position of a valid key. */
    static const char *elems[] = {
        "ffffffffffffffffffffffffffffff7f", "00000000000000000000000000000080",
        "ffffffffffffffffffffffffffffffff", "00000000000000000000000000000000"};
    for (int e = 0; e < 4; e++) {
        for (int j = 0; j < 3; j++) {
            random_bytes(sk, 32);
            cryptopt_kummer_keypair(pk, sk);
            unhex(pk + 16 * j, elems[e], 16);
            bad_ok += cryptopt_kummer(out, sk, pk) == 0;
            bad++;
        }
    }
    printf("reject: %ld of %ld random, %ld of %ld edited, %ld of %ld malformed accepted\n",
           random_ok, n, edited_ok, n, bad_ok, bad);
    return 0;
}

static int ladder(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t w[23], o1[8], o2[8];
        char *p = line;
        for (int i = 0; i < 23; i++) w[i] = strtoull(p, &p, 16);
        cryptopt_kummer_ladderstep(o1, o2, w, w + 8, w + 16, (fiat_uint1)w[22]);
        for (int i = 0; i < 8; i++) printf("%llx ", (unsigned long long)o1[i]);
        for (int i = 0; i < 8; i++) printf("%llx%c", (unsigned long long)o2[i], i < 7 ? ' ' : '\n');
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "ladder") == 0) return ladder();
    if (argc >= 2 && strcmp(argv[1], "order") == 0) return order();
    if (argc != 3) return 2;
    long n = atol(argv[2]);
    if (strcmp(argv[1], "dh") == 0) return dh(n);
    if (strcmp(argv[1], "reject") == 0) return reject(n);
    return 2;
}
