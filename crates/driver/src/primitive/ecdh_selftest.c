/* The self-test `cryptopt primitive p256|secp256k1` runs on the library before it writes
 * it: known answers (VECTORS, defined above this comment for the curve) and rejections
 * (a point off the curve, a coordinate not below p, an unknown tag, the scalars 0 and n).
 * Prints `ok` and exits 0, or names the first failure and exits 1. */
#include <stdio.h>
#include <string.h>

static void unhex(uint8_t *out, const char *hex, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
}

int main(void) {
    uint8_t priv[32], pub[65], want[32], out[32];
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        unhex(priv, vectors[i].priv, 32);
        unhex(pub, vectors[i].pub, 65);
        unhex(want, vectors[i].out, 32);
        int r = ECDH(out, priv, pub);
        if (r != 0 || memcmp(out, want, 32) != 0) {
            printf("vector %zu: returned %d, wrong shared secret\n", i, r);
            return 1;
        }
    }
    /* Rejections, from the first vector. */
    unhex(priv, vectors[0].priv, 32);
    uint8_t bad[65];
    static const struct { int at; uint8_t set, xor_; const char *what; } edits[] = {
        {64, 0, 1, "a point off the curve"},
        {0, 0x05, 0, "tag 05"},
        {0, 0x02, 0, "a compressed tag on 65 bytes"},
        {1, 0xff, 0, "x not below p"},
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        unhex(bad, vectors[0].pub, 65);
        if (edits[e].set) bad[edits[e].at] = edits[e].set;
        bad[edits[e].at] ^= edits[e].xor_;
        if (edits[e].at == 1) memset(bad + 1, 0xff, 32);
        if (ECDH(out, priv, bad) != -1) {
            printf("%s accepted\n", edits[e].what);
            return 1;
        }
    }
    unhex(pub, vectors[0].pub, 65);
    uint8_t zero[32] = {0}, n[32];
    unhex(n, ORDER_HEX, 32);
    if (ECDH(out, zero, pub) != -1 || ECDH(out, n, pub) != -1) {
        printf("the scalar 0 or n accepted\n");
        return 1;
    }
    if (memcmp(out, zero, 32) != 0) {
        printf("a rejected scalar left a nonzero output\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
