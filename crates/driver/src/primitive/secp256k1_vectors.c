/* secp256k1 known answers, from libsecp256k1's secp256k1_ecdh (default hash): two key
 * pairs, and the scalar 1 times the base point, SHA-256(02 || Gx). */
#include <stdint.h>

#include "cryptopt_secp256k1.h"

#define ECDH cryptopt_secp256k1_ecdh

static const struct {
    const char *priv, *pub, *out;
} vectors[] = {
    {"7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534",
     "045be865a0714c1dec726af1047fb21c32ef12a996c09bc5a47163f01be7ec1582"
     "166f9653b73b0125ed7412925055e6ab62871a21df32515684609deca409b288",
     "bcae950b320a45205d6abf3690afe8e3b7e3baea08b8c84aaebff7a92acf22f5"},
    {"38f65d6dce47676044d58ce5139582d568f64bb16098d179dbab07741dd5caf5",
     "045be865a0714c1dec726af1047fb21c32ef12a996c09bc5a47163f01be7ec1582"
     "166f9653b73b0125ed7412925055e6ab62871a21df32515684609deca409b288",
     "0b8edbad37096dc4620a702545d5e27d61405813587959ac35e0f248aad4c9a7"},
    {"0000000000000000000000000000000000000000000000000000000000000001",
     "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
     "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
     "0f715baf5d4c2ed329785cef29e562f73488c8a2bb9dbc5700b361d54b9b0554"},
};

