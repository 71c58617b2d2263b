/* AWS-LC for `cryptopt bench --primitives`: X25519 and P-256 ECDH through EVP_PKEY_derive
 * (keys loaded and the context ready before timing, as aws-lc-rs's agreement does). AWS-LC
 * here is aws-lc-sys's static library, the backend of aws-lc-rs (its X25519 and P-256
 * scalar multiplications are s2n-bignum's verified assembly). Compiled alone with
 * AWS-LC's headers: their prefix header renames every symbol (aws_lc_<version>_...), so
 * the harness links it beside OpenSSL's libcrypto. Each function returns 0 on success. */
#include <stdint.h>
#include <stdio.h>

#include <openssl/base.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/evp.h>
#include <openssl/nid.h>

#include "bench_awslc.h"

static EVP_PKEY_CTX *x25519_ctx, *p256_ctx;

static EVP_PKEY_CTX *derive_ctx(EVP_PKEY *mine, EVP_PKEY *peer) {
    EVP_PKEY_CTX *ctx = mine && peer ? EVP_PKEY_CTX_new(mine, NULL) : NULL;
    if (!ctx || EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, peer) != 1)
        return NULL;
    return ctx;
}

int awslc_x25519_setup(const uint8_t scalar[32], const uint8_t point[32]) {
    x25519_ctx = derive_ctx(EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, scalar, 32),
                            EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, point, 32));
    return x25519_ctx ? 0 : -1;
}

int awslc_x25519(uint8_t out[32]) {
    size_t n = 32;
    return EVP_PKEY_derive(x25519_ctx, out, &n) == 1 && n == 32 ? 0 : -1;
}

/* An EVP_PKEY for P-256 from a private scalar (its public key computed) or a public
 * point in SEC1 (priv NULL). */
static EVP_PKEY *p256_key(const uint8_t priv[32], const uint8_t pub[65]) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    if (!key) return NULL;
    const EC_GROUP *group = EC_KEY_get0_group(key);
    EC_POINT *point = EC_POINT_new(group);
    BIGNUM *k = priv ? BN_bin2bn(priv, 32, NULL) : NULL;
    int ok = point != NULL;
    if (ok && priv)
        ok = k && EC_KEY_set_private_key(key, k) == 1 &&
             EC_POINT_mul(group, point, k, NULL, NULL, NULL) == 1;
    else if (ok)
        ok = EC_POINT_oct2point(group, point, pub, 65, NULL) == 1;
    ok = ok && EC_KEY_set_public_key(key, point) == 1;
    EC_POINT_free(point);
    BN_free(k);
    EVP_PKEY *pkey = ok ? EVP_PKEY_new() : NULL;
    if (!pkey || EVP_PKEY_assign_EC_KEY(pkey, key) != 1) {
        EC_KEY_free(key);
        return NULL;
    }
    return pkey;
}

int awslc_p256_setup(const uint8_t priv[32], const uint8_t pub[65]) {
    p256_ctx = derive_ctx(p256_key(priv, NULL), p256_key(NULL, pub));
    return p256_ctx ? 0 : -1;
}

int awslc_p256(uint8_t out[32]) {
    size_t n = 32;
    return EVP_PKEY_derive(p256_ctx, out, &n) == 1 && n == 32 ? 0 : -1;
}

void awslc_version(void) {
    printf("version,aws-lc,AWS-LC %s (aws-lc-sys %s, the backend of aws-lc-rs)\n",
           AWSLC_VERSION_NUMBER_STRING, AWSLC_SYS_VERSION);
}
