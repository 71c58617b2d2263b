/* P-256 known answers: NIST CAVS 14.1 ECC CDH primitive (SP 800-56A), COUNT 0 and 1;
 * and dIUT times the base point, whose x is QIUTx. */
#include <stdint.h>

#include "cryptopt_p256.h"

#define ECDH cryptopt_p256_ecdh

static const struct {
    const char *priv, *pub, *out;
} vectors[] = {
    {"7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534",
     "04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
     "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac",
     "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"},
    {"38f65d6dce47676044d58ce5139582d568f64bb16098d179dbab07741dd5caf5",
     "04809f04289c64348c01515eb03d5ce7ac1a8cb9498f5caa50197e58d43a86a7ae"
     "b29d84e811197f25eba8f5194092cb6ff440e26d4421011372461f579271cda3",
     "057d636096cb80b67a8c038c890e887d1adfa4195e9b3ce241c8a778c59cda67"},
    {"7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534",
     "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
     "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
     "ead218590119e8876b29146ff89ca61770c4edbbf97d38ce385ed281d8a6b230"},
};

