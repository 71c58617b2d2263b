/* AWS-LC's side of `cryptopt bench --primitives` (bench_awslc.c, built with AWS-LC's
 * headers; the harness sees only these declarations). */
#include <stdint.h>

int awslc_x25519_setup(const uint8_t scalar[32], const uint8_t point[32]);
int awslc_x25519(uint8_t out[32]);
int awslc_p256_setup(const uint8_t priv[32], const uint8_t pub[65]);
int awslc_p256(uint8_t out[32]);
void awslc_version(void);
