/*
 * Throughput of PAVELOR-512 through EVP against SHA-512 through EVP, and
 * against the provider's own one-shot function called directly (the Rust
 * crate behind a thin C-ABI wrapper, no EVP): the difference is what the
 * EVP layer adds per call. CPU time of this process (CLOCK_PROCESS_CPUTIME_ID),
 * so other load on the machine matters less than for wall-clock figures.
 *
 *   cc -O2 -I crates/pavelor-openssl/tests/c crates/pavelor-openssl/tests/c/evp_bench.c \
 *      -o evp_bench -lcrypto
 *   OPENSSL_MODULES=DIR ./evp_bench [SECONDS_PER_FIGURE]
 *
 * Not a test: run by hand (see docs/openssl.md).
 */
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char buf[16384];

enum way { EVP_ONESHOT, EVP_REUSED_CTX, PROVIDER_DIRECT };

static double measure(enum way way, EVP_MD *md, OSSL_FUNC_digest_digest_fn *direct,
                      void *provctx, size_t len, double seconds) {
    unsigned char out[128];
    unsigned int n = 0;
    size_t outl = 0;
    /* The provider's one-shot writes exactly the digest and takes no
     * other output size. */
    size_t dsize = (size_t)EVP_MD_get_size(md);
    long iters = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    double start = cpu_now(), now = start;
    while (now - start < seconds) {
        for (int i = 0; i < 64; i++) {
            int ok = 0;
            switch (way) {
            case EVP_ONESHOT:
                ok = EVP_Digest(buf, len, out, &n, md, NULL);
                break;
            case EVP_REUSED_CTX:
                ok = EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, buf, len) &&
                     EVP_DigestFinal_ex(ctx, out, &n);
                break;
            case PROVIDER_DIRECT:
                ok = direct(provctx, buf, len, out, &outl, dsize);
                break;
            }
            if (!ok) {
                fprintf(stderr, "digest failed\n");
                exit(1);
            }
        }
        iters += 64;
        now = cpu_now();
    }
    EVP_MD_CTX_free(ctx);
    return (double)iters * (double)len / (now - start) / 1e6;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(NULL, "pavelor");
    OSSL_PROVIDER *dflt = OSSL_PROVIDER_load(NULL, "default");
    if (prov == NULL || dflt == NULL) {
        fprintf(stderr, "cannot load the providers (set OPENSSL_MODULES)\n");
        return 1;
    }
    EVP_MD *pav = EVP_MD_fetch(NULL, "PAVELOR-512", NULL);
    EVP_MD *sha = EVP_MD_fetch(NULL, "SHA512", NULL);
    int no_cache = 0;
    const OSSL_ALGORITHM *alg = OSSL_PROVIDER_query_operation(prov, OSSL_OP_DIGEST, &no_cache);
    OSSL_FUNC_digest_digest_fn *direct = NULL;
    for (const OSSL_DISPATCH *d = alg[0].implementation; d->function_id != 0; d++)
        if (d->function_id == OSSL_FUNC_DIGEST_DIGEST)
            direct = OSSL_FUNC_digest_digest(d);
    if (pav == NULL || sha == NULL || direct == NULL ||
        strncmp(alg[0].algorithm_names, "PAVELOR-512:", 12) != 0) {
        fprintf(stderr, "fetch failed\n");
        return 1;
    }
    void *provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 13 + 7);

    static const size_t sizes[] = {16, 64, 256, 1024, 8192, 16384};
    printf("MB/s (10^6 bytes per CPU second), %.2f s per figure\n", seconds);
    printf("%8s %14s %14s %14s %14s %14s\n", "bytes", "P512 direct", "P512 EVP_Dgst",
           "P512 EVP ctx", "SHA512 EVP_Dgst", "SHA512 EVP ctx");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t len = sizes[s];
        printf("%8zu %14.1f %14.1f %14.1f %14.1f %14.1f\n", len,
               measure(PROVIDER_DIRECT, pav, direct, provctx, len, seconds),
               measure(EVP_ONESHOT, pav, direct, provctx, len, seconds),
               measure(EVP_REUSED_CTX, pav, direct, provctx, len, seconds),
               measure(EVP_ONESHOT, sha, direct, provctx, len, seconds),
               measure(EVP_REUSED_CTX, sha, direct, provctx, len, seconds));
    }
    EVP_MD_free(pav);
    EVP_MD_free(sha);
    OSSL_PROVIDER_unload(dflt);
    OSSL_PROVIDER_unload(prov);
    return 0;
}
