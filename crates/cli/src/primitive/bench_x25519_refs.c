/* The X25519 references of `cryptopt bench --primitives` (the X25519 and Kummer rows):
 * OpenSSL 3's X25519 through EVP_PKEY_derive and, with AWSLC, AWS-LC's, with keys loaded
 * and the context ready before timing; libsodium's crypto_scalarmult needs no setup.
 * Put before the row's part (`bench_x25519.c`, `bench_kummer.c`), which includes what
 * this uses. */
static EVP_PKEY_CTX *x25519_ctx;

/* OpenSSL's X25519 of (scalar, point) into out[32]. */
static int openssl_x25519(uint8_t out[32]) {
    size_t n = 32;
    return EVP_PKEY_derive(x25519_ctx, out, &n) == 1 ? 0 : -1;
}

/* Loads (scalar, point) into OpenSSL (and AWS-LC); 0, or -1 with a line on stderr. */
static int x25519_refs_setup(const uint8_t scalar[32], const uint8_t point[32]) {
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, scalar, 32);
    EVP_PKEY *pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, point, 32);
    x25519_ctx = EVP_PKEY_CTX_new(priv, NULL);
    if (!x25519_ctx || EVP_PKEY_derive_init(x25519_ctx) != 1 ||
        EVP_PKEY_derive_set_peer(x25519_ctx, pub) != 1) {
        fprintf(stderr, "OpenSSL: cannot set up X25519\n");
        return -1;
    }
#if AWSLC
    if (awslc_x25519_setup(scalar, point) != 0) {
        fprintf(stderr, "AWS-LC: cannot set up X25519\n");
        return -1;
    }
#endif
    return 0;
}

static void x25519_refs_versions(void) {
    printf("version,libsodium,libsodium %s\n", sodium_version_string());
    printf("version,openssl,%s\n", OpenSSL_version(OPENSSL_VERSION));
#if AWSLC
    awslc_version();
#endif
}
