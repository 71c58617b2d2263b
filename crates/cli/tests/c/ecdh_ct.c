/* Constant time of the ECDH libraries, checked with valgrind memcheck (the ctgrind
 * technique): the secret private key is marked undefined, so any branch or memory
 * address that depends on it is reported as a use of an uninitialised value. Built with
 * -DP256 or -DSECP256K1 (the known-answer key pair of the library's self-test); with
 * -DLEAKY it adds one deliberate secret-dependent branch, which must be reported (the
 * check itself works). Also a private key out of range (n itself): the rejection is
 * by masks too. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "ecdh_curve.h"
#include "inputs.h"

/* The known-answer key pair of the library's self-test. */
static const char *PRIV = "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534";
#if defined(P256)
static const char *PUB = "04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
                         "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac";
#else
static const char *PUB = "045be865a0714c1dec726af1047fb21c32ef12a996c09bc5a47163f01be7ec1582"
                         "166f9653b73b0125ed7412925055e6ab62871a21df32515684609deca409b288";
#endif

int main(void) {
    uint8_t k[32], pub[65], out[32];
    unhex(pub, PUB, 65);
    for (int round = 0; round < 2; round++) {
        unhex(k, round == 0 ? PRIV : N_HEX, 32);
        VALGRIND_MAKE_MEM_UNDEFINED(k, sizeof k);
#ifdef LEAKY
        if (k[round] & 1) puts("a secret-dependent branch");
#endif
        int r = ECDH(out, k, pub);
        /* The result is the caller's to use: declassified before it is printed. */
        VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
        VALGRIND_MAKE_MEM_DEFINED(&r, sizeof r);
        printf("round %d: returned %d, first byte %02x\n", round, r, out[0]);
    }
    return 0;
}
