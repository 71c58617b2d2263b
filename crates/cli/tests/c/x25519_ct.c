/* Constant time, checked with valgrind memcheck (the ctgrind technique): the secret scalar
 * is marked undefined, so any branch or memory address that depends on it is reported
 * as a use of an uninitialised value. Built with -DLEAKY it adds one deliberate
 * secret-dependent branch, which must be reported (the check itself works). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "cryptopt_x25519.h"

int main(void) {
    uint8_t k[32], u[32], out[32];
    for (int i = 0; i < 32; i++) {
        k[i] = (uint8_t)(7 * i + 1);
        u[i] = (uint8_t)(13 * i + 5);
    }
    for (int round = 0; round < 2; round++) {
        VALGRIND_MAKE_MEM_UNDEFINED(k, sizeof k);
#ifdef LEAKY
        if (k[round] & 1) u[0] ^= 1;
#endif
        int r = cryptopt_x25519(out, k, u);
        /* The result is the caller's to use: declassified before it is printed. */
        VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
        VALGRIND_MAKE_MEM_DEFINED(&r, sizeof r);
        VALGRIND_MAKE_MEM_DEFINED(k, sizeof k);
        printf("round %d: returned %d, first byte %02x\n", round, r, out[0]);
        memcpy(u, out, 32);
    }
    return 0;
}
