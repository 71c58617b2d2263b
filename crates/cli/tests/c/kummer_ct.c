/* Constant time of libcryptopt_kummer, checked with valgrind memcheck (the ctgrind
 * technique): the secret scalar is marked undefined, so any branch or memory address that
 * depends on it is reported as a use of an uninitialised value. Key generation and a
 * shared secret, each with a secret scalar. Built with -DLEAKY it adds one deliberate
 * secret-dependent branch, which must be reported (the check itself works). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "cryptopt_kummer.h"

int main(void) {
    uint8_t ska[32], skb[32], pka[48], out[48];
    for (int i = 0; i < 32; i++) {
        ska[i] = (uint8_t)(7 * i + 1);
        skb[i] = (uint8_t)(13 * i + 5);
    }
    VALGRIND_MAKE_MEM_UNDEFINED(ska, sizeof ska);
    VALGRIND_MAKE_MEM_UNDEFINED(skb, sizeof skb);
#ifdef LEAKY
    if (ska[3] & 1) skb[0] ^= 1;
#endif
    int r = cryptopt_kummer_keypair(pka, ska);
    /* A public key is public: declassified before the other side uses it. */
    VALGRIND_MAKE_MEM_DEFINED(pka, sizeof pka);
    VALGRIND_MAKE_MEM_DEFINED(&r, sizeof r);
    int s = cryptopt_kummer(out, skb, pka);
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    VALGRIND_MAKE_MEM_DEFINED(&s, sizeof s);
    printf("keypair returned %d, shared secret %d, first byte %02x\n", r, s, out[0]);
    return 0;
}
