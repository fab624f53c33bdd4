/*
 * Test of the `pavelor` OpenSSL 3 provider through the public OpenSSL API
 * only. It knows the algorithm names and the official answers, nothing
 * else: the module is found by OpenSSL (OPENSSL_MODULES or the default
 * module directory) from the provider name "pavelor".
 *
 *   evp_pavelor kat      official KAT_2_12 answers for all three instances:
 *                        EVP_Digest / EVP_Q_digest, streaming in odd chunk
 *                        sizes with EVP_MD_CTX_copy_ex midway (copy and
 *                        original both finish), the provider's one-shot
 *                        digest function, aliases, properties, parameters
 *   evp_pavelor errors   NULL / short-buffer / wrong-state paths fail and
 *                        leave an error on the OpenSSL error queue, with
 *                        the out-length 0; the xoflen rules of the long
 *                        digests (EVP_DigestFinal_ex refused after any
 *                        xoflen not set by EVP_DigestFinalXOF itself, on
 *                        copies too); a finished MAC context and its copies
 *                        refuse final
 *   evp_pavelor hmac KEYHEX MSGHEX TAG512 TAG768 TAG1024
 *                        EVP_Q_mac and streamed EVP_MAC (with a context
 *                        copy) of "PAVELOR-HMAC" equal the given tags;
 *                        OpenSSL's own "HMAC" refuses every instance cleanly
 *   evp_pavelor stress ROUNDS THREADS
 *                        load / use / unload the module ROUNDS times (fresh
 *                        library contexts), and hash from THREADS threads
 *
 * Every output buffer is followed by canary bytes, and the part of it a
 * call may not write is filled with a known byte: after each call the test
 * checks that nothing past what the call reports was written.
 *
 * Exit status 0 and a last line "... OK" on success; 1 with a message on
 * the first failure.
 */
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kat_vectors.h"

#define N_KATS (sizeof(KAT_VECTORS) / sizeof(KAT_VECTORS[0]))
#define MAX_DIGEST 128
#define MAX_MSG 512
/* A length no call may leave in an out-length after failing. */
#define GARBAGE_LEN 0xdeadbeefu

static const char *const NAMES[3] = {"PAVELOR-512", "PAVELOR-768", "PAVELOR-1024"};

static void fail(const char *what) {
    fprintf(stderr, "FAIL: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond))                                                           \
            fail(#cond);                                                       \
    } while (0)

static size_t unhex(const char *hex, unsigned char *out, size_t max) {
    size_t n = strlen(hex);
    if (n % 2 != 0 || n / 2 > max)
        fail("bad hex argument");
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            fail("bad hex digit");
        out[i] = (unsigned char)v;
    }
    return n / 2;
}

/* An output buffer of `cap` bytes followed by CANARY_LEN canary bytes. The
 * canary is longer than the largest digest, so even a call writing a whole
 * PAVELOR-1024 digest past the end of a buffer only hits the canary. */
#define MAX_OUT (2 * MAX_DIGEST)
#define CANARY_LEN (2 * MAX_DIGEST)
#define CANARY 0xA5
#define FILL 0x5A

struct outbuf {
    unsigned char bytes[MAX_OUT + CANARY_LEN];
    size_t cap;
};

/* Makes `o` a buffer of `cap` bytes (all FILL) followed by the canary and
 * returns it. */
static unsigned char *out_prep(struct outbuf *o, size_t cap) {
    if (cap > MAX_OUT)
        fail("out_prep: buffer larger than MAX_OUT");
    o->cap = cap;
    memset(o->bytes, FILL, cap);
    memset(o->bytes + cap, CANARY, CANARY_LEN);
    return o->bytes;
}

/* Checks that a call that reported `written` bytes (0 for a failure) left
 * the rest of the buffer and the canary after it untouched. */
static void out_check(const struct outbuf *o, size_t written, const char *what) {
    if (written > o->cap) {
        fprintf(stderr, "FAIL: %s: reported %zu bytes in a %zu-byte buffer\n", what, written,
                o->cap);
        exit(1);
    }
    for (size_t i = written; i < o->cap; i++)
        if (o->bytes[i] != FILL) {
            fprintf(stderr, "FAIL: %s: byte %zu written, only %zu reported\n", what, i, written);
            exit(1);
        }
    for (size_t i = 0; i < CANARY_LEN; i++)
        if (o->bytes[o->cap + i] != CANARY) {
            fprintf(stderr, "FAIL: %s: canary byte %zu after the %zu-byte buffer overwritten\n",
                    what, i, o->cap);
            exit(1);
        }
}

static OSSL_PROVIDER *load_pavelor(OSSL_LIB_CTX *libctx) {
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, "pavelor");
    if (prov == NULL)
        fail("OSSL_PROVIDER_load(\"pavelor\") (is OPENSSL_MODULES set?)");
    return prov;
}

/* Finishes a digest of `size` bytes into `o`: EVP_DigestFinal_ex into an
 * EVP_MAX_MD_SIZE buffer where the digest fits it, else EVP_DigestFinalXOF
 * with the exact size into a buffer of that size (the provider refuses
 * EVP_DigestFinal_ex there, see `errors`). Checks the canary either way. */
static int finish(EVP_MD_CTX *ctx, struct outbuf *o, size_t size) {
    int ok;
    if (size <= EVP_MAX_MD_SIZE) {
        unsigned int n = GARBAGE_LEN;
        ok = EVP_DigestFinal_ex(ctx, out_prep(o, EVP_MAX_MD_SIZE), &n) == 1;
        if (ok ? n != size : n != 0)
            fail("EVP_DigestFinal_ex: wrong length");
    } else {
        ok = EVP_DigestFinalXOF(ctx, out_prep(o, size), size) == 1;
    }
    out_check(o, ok ? size : 0, "finish");
    return ok;
}

/* The provider's own function `id` for the digest `name`, found through
 * OSSL_PROVIDER_query_operation. */
static const OSSL_DISPATCH *digest_entry(OSSL_PROVIDER *prov, const char *name, int id) {
    int no_cache = 0;
    const OSSL_ALGORITHM *algs = OSSL_PROVIDER_query_operation(prov, OSSL_OP_DIGEST, &no_cache);
    CHECK(algs != NULL);
    for (; algs->algorithm_names != NULL; algs++) {
        if (strncmp(algs->algorithm_names, name, strlen(name)) != 0 ||
            algs->algorithm_names[strlen(name)] != ':')
            continue;
        CHECK(strcmp(algs->property_definition, "provider=pavelor") == 0);
        for (const OSSL_DISPATCH *d = algs->implementation; d->function_id != 0; d++)
            if (d->function_id == id)
                return d;
    }
    fail("no such digest function");
    return NULL;
}

/* The provider's own one-shot digest function (OSSL_FUNC_DIGEST_DIGEST). */
static OSSL_FUNC_digest_digest_fn *oneshot_fn(OSSL_PROVIDER *prov, const char *name) {
    return OSSL_FUNC_digest_digest(digest_entry(prov, name, OSSL_FUNC_DIGEST_DIGEST));
}

/*
 * Every digest, the long ones (96 and 128 bytes, over EVP_MAX_MD_SIZE) too,
 * must be fetchable: an OpenSSL that starts refusing digests larger than
 * EVP_MAX_MD_SIZE at fetch time would break PAVELOR-768 and PAVELOR-1024
 * for every EVP user, so that is said in so many words, not as a CHECK.
 */
static void fetch_every_digest(void) {
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        EVP_MD *md = EVP_MD_fetch(NULL, NAMES[i], NULL);
        if (md == NULL) {
            fprintf(stderr,
                    "FAIL: EVP_MD_fetch(\"%s\") returned NULL under %s: this OpenSSL refuses "
                    "the digest%s\n",
                    NAMES[i], OpenSSL_version(OPENSSL_VERSION),
                    strcmp(NAMES[i], "PAVELOR-512") != 0
                        ? " (longer than EVP_MAX_MD_SIZE = 64 bytes); see docs/openssl.md"
                        : "");
            ERR_print_errors_fp(stderr);
            exit(3);
        }
        EVP_MD_free(md);
    }
}

static void kat_mode(void) {
    OSSL_PROVIDER *prov = load_pavelor(NULL);
    void *provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    CHECK(provctx != NULL);
    fetch_every_digest();
    static const size_t chunks[] = {1, 3, 7, 13, 61, 64, 127, 191, 193, 250};

    for (size_t k = 0; k < N_KATS; k++) {
        const struct kat_vector *v = &KAT_VECTORS[k];
        unsigned char msg[MAX_MSG], want[MAX_DIGEST];
        struct outbuf got, got2;
        size_t len = unhex(v->msg_hex, msg, sizeof msg);
        size_t dlen = unhex(v->digest_hex, want, sizeof want);
        CHECK(len * 8 == v->msg_bits);

        EVP_MD *md = EVP_MD_fetch(NULL, v->name, NULL);
        CHECK(md != NULL);
        CHECK((size_t)EVP_MD_get_size(md) == dlen);
        CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)), "pavelor") == 0);

        /* One-shot through EVP. */
        if (dlen <= EVP_MAX_MD_SIZE) {
            unsigned int n = 0;
            CHECK(EVP_Digest(msg, len, out_prep(&got, EVP_MAX_MD_SIZE), &n, md, NULL) == 1);
            CHECK(n == dlen && memcmp(got.bytes, want, dlen) == 0);
            out_check(&got, n, "EVP_Digest");
            size_t qn = 0;
            CHECK(EVP_Q_digest(NULL, v->name, NULL, msg, len, out_prep(&got, EVP_MAX_MD_SIZE),
                               &qn) == 1);
            CHECK(qn == dlen && memcmp(got.bytes, want, dlen) == 0);
            out_check(&got, qn, "EVP_Q_digest");
        }
        /* One-shot through the provider's digest function. */
        {
            size_t n = 0;
            CHECK(oneshot_fn(prov, v->name)(provctx, msg, len, out_prep(&got, dlen), &n, dlen) ==
                  1);
            CHECK(n == dlen && memcmp(got.bytes, want, dlen) == 0);
            out_check(&got, n, "provider one-shot");
        }
        /* Init/update/final in one update. */
        {
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            CHECK(ctx != NULL);
            CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1);
            CHECK(EVP_DigestUpdate(ctx, msg, len) == 1);
            CHECK(finish(ctx, &got, dlen) && memcmp(got.bytes, want, dlen) == 0);
            /* Reuse after final: init again gives the same answer. */
            CHECK(EVP_DigestInit_ex(ctx, NULL, NULL) == 1);
            CHECK(EVP_DigestUpdate(ctx, msg, len) == 1);
            CHECK(finish(ctx, &got, dlen) && memcmp(got.bytes, want, dlen) == 0);
            EVP_MD_CTX_free(ctx);
        }
        /* Streamed in odd chunks, copied midway; both finish correctly. */
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
            CHECK(ctx != NULL && copy != NULL);
            CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1);
            size_t pos = 0, mid = len / 2 + c;
            if (mid > len)
                mid = len;
            while (pos < mid) {
                size_t n = chunks[c] < mid - pos ? chunks[c] : mid - pos;
                CHECK(EVP_DigestUpdate(ctx, msg + pos, n) == 1);
                pos += n;
            }
            CHECK(EVP_MD_CTX_copy_ex(copy, ctx) == 1);
            size_t pos2 = pos;
            while (pos < len) {
                size_t n = chunks[c] < len - pos ? chunks[c] : len - pos;
                CHECK(EVP_DigestUpdate(ctx, msg + pos, n) == 1);
                pos += n;
            }
            /* The copy gets the rest in one go, after the original. */
            CHECK(EVP_DigestUpdate(copy, msg + pos2, len - pos2) == 1);
            CHECK(finish(ctx, &got, dlen) && memcmp(got.bytes, want, dlen) == 0);
            CHECK(finish(copy, &got2, dlen) && memcmp(got2.bytes, want, dlen) == 0);
            EVP_MD_CTX_free(ctx);
            EVP_MD_CTX_free(copy);
        }
        EVP_MD_free(md);
    }

    /* Aliases (names are case-insensitive) and the property. */
    static const char *const aliases[][2] = {
        {"Pavelor-512", "PAVELOR-512"}, {"PAVELOR512", "PAVELOR-512"},
        {"pavelor-768", "PAVELOR-768"}, {"PAVELOR768", "PAVELOR-768"},
        {"Pavelor-1024", "PAVELOR-1024"}, {"PAVELOR1024", "PAVELOR-1024"},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        EVP_MD *a = EVP_MD_fetch(NULL, aliases[i][0], "provider=pavelor");
        EVP_MD *b = EVP_MD_fetch(NULL, aliases[i][1], NULL);
        CHECK(a != NULL && b != NULL);
        CHECK(EVP_MD_is_a(a, aliases[i][1]) && EVP_MD_is_a(b, aliases[i][0]));
        EVP_MD_free(a);
        EVP_MD_free(b);
    }
    /* Block sizes: the rate (HMAC's B). */
    static const int blocks[3] = {192, 128, 64};
    for (int i = 0; i < 3; i++) {
        EVP_MD *md = EVP_MD_fetch(NULL, NAMES[i], NULL);
        CHECK(md != NULL && EVP_MD_get_block_size(md) == blocks[i]);
        CHECK((EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) == 0);
        EVP_MD_free(md);
    }
    /* Provider parameters. */
    {
        const char *name = NULL, *version = NULL, *buildinfo = NULL;
        int status = 0;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_NAME, (char **)&name, 0),
            OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_VERSION, (char **)&version, 0),
            OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, (char **)&buildinfo, 0),
            OSSL_PARAM_construct_int(OSSL_PROV_PARAM_STATUS, &status),
            OSSL_PARAM_construct_end(),
        };
        CHECK(OSSL_PROVIDER_get_params(prov, params) == 1);
        CHECK(name != NULL && strstr(name, "Pavelor") != NULL);
        CHECK(version != NULL && buildinfo != NULL && status == 1);
        printf("provider: %s %s (%s)\n", name, version, buildinfo);
    }
    CHECK(ERR_peek_error() == 0);
    CHECK(OSSL_PROVIDER_unload(prov) == 1);
    printf("kat: %zu official answers x (EVP one-shot, provider one-shot, streamed with copy) OK\n",
           N_KATS);
}

/* Expects `ok == 0` and an error from the provider on the queue whose
 * reason text contains `text`; clears the queue. */
static void expect_error(int ok, const char *text, const char *what) {
    if (ok) {
        fprintf(stderr, "FAIL: %s succeeded\n", what);
        exit(1);
    }
    unsigned long e = ERR_peek_error();
    if (e == 0) {
        fprintf(stderr, "FAIL: %s: no error on the queue\n", what);
        exit(1);
    }
    /* The provider's error is the earliest one (EVP may add its own). */
    const char *lib = ERR_lib_error_string(e);
    const char *reason = ERR_reason_error_string(e);
    if (lib == NULL || strcmp(lib, "pavelor") != 0 || reason == NULL ||
        strstr(reason, text) == NULL) {
        fprintf(stderr, "FAIL: %s: expected a pavelor error \"%s\", got:\n", what, text);
        ERR_print_errors_fp(stderr);
        exit(1);
    }
    ERR_clear_error();
}

/* Expects the earliest error on the queue to have been raised in the
 * provider's source file `file` (a path suffix), function `func`, at a
 * line > 0 (set_error_debug); leaves the queue as it is. */
static void expect_error_site(const char *file, const char *func, const char *what) {
    const char *f = NULL, *fn = NULL;
    int line = 0;
    CHECK(ERR_peek_error_all(&f, &line, &fn, NULL, NULL) != 0);
    size_t fl = f ? strlen(f) : 0, sl = strlen(file);
    if (f == NULL || fl < sl || strcmp(f + fl - sl, file) != 0 || fn == NULL ||
        strcmp(fn, func) != 0 || line <= 0) {
        fprintf(stderr, "FAIL: %s: expected an error from %s (%s), got %s:%d (%s)\n", what, file,
                func, f ? f : "(null)", line, fn ? fn : "(null)");
        exit(1);
    }
}

/* Expects `ok == 0` and some error on the queue (raised by EVP before the
 * provider is reached); clears the queue. */
static void expect_any_error(int ok, const char *what) {
    if (ok || ERR_peek_error() == 0) {
        fprintf(stderr, "FAIL: %s: expected a failure with an error on the queue\n", what);
        exit(1);
    }
    ERR_clear_error();
}

/*
 * Another EVP final on a context whose last final failed. OpenSSL 3.0
 * passes it to the provider, whose context a failed final does not consume.
 * The later lines tested here (3.5, 4.0) mark a context finalised by any
 * final, failed or not, and refuse the next one in EVP (EVP_R_FINAL_ERROR)
 * without calling the provider; there the context is set up again (init and
 * the same "abc") so that the next check still reaches the provider. The
 * lines in between (3.1 to 3.4) are not tested and are taken as the later
 * ones.
 */
static int refinal_reaches_provider(void) {
    return (OpenSSL_version_num() >> 20) == 0x300;
}

static void expect_evp_final_refused(int ok, const char *what) {
    if (ok) {
        fprintf(stderr, "FAIL: %s succeeded\n", what);
        exit(1);
    }
    unsigned long e = ERR_peek_last_error();
    if (e == 0 || ERR_GET_LIB(e) != ERR_LIB_EVP || ERR_GET_REASON(e) != EVP_R_FINAL_ERROR) {
        fprintf(stderr, "FAIL: %s: expected EVP's own refusal (EVP_R_FINAL_ERROR), got:\n", what);
        ERR_print_errors_fp(stderr);
        exit(1);
    }
    ERR_clear_error();
}

static void after_failed_final(EVP_MD_CTX *ctx, const EVP_MD *md, const char *what) {
    if (refinal_reaches_provider())
        return;
    unsigned char b[MAX_DIGEST];
    unsigned int un = 0;
    expect_evp_final_refused(EVP_DigestFinal_ex(ctx, b, &un), what);
    CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1);
    CHECK(EVP_DigestUpdate(ctx, "abc", 3) == 1);
}

/* The provider's own functions of one digest, from its dispatch table (to
 * call `final` the way each EVP function does, with our own pointers). */
struct digest_fns {
    OSSL_FUNC_digest_newctx_fn *newctx;
    OSSL_FUNC_digest_init_fn *init;
    OSSL_FUNC_digest_update_fn *update;
    OSSL_FUNC_digest_final_fn *final;
    OSSL_FUNC_digest_dupctx_fn *dupctx;
    OSSL_FUNC_digest_freectx_fn *freectx;
    OSSL_FUNC_digest_set_ctx_params_fn *set_params;
};

static struct digest_fns digest_fns(OSSL_PROVIDER *prov, const char *name) {
    struct digest_fns f;
    f.newctx = OSSL_FUNC_digest_newctx(digest_entry(prov, name, OSSL_FUNC_DIGEST_NEWCTX));
    f.init = OSSL_FUNC_digest_init(digest_entry(prov, name, OSSL_FUNC_DIGEST_INIT));
    f.update = OSSL_FUNC_digest_update(digest_entry(prov, name, OSSL_FUNC_DIGEST_UPDATE));
    f.final = OSSL_FUNC_digest_final(digest_entry(prov, name, OSSL_FUNC_DIGEST_FINAL));
    f.dupctx = OSSL_FUNC_digest_dupctx(digest_entry(prov, name, OSSL_FUNC_DIGEST_DUPCTX));
    f.freectx = OSSL_FUNC_digest_freectx(digest_entry(prov, name, OSSL_FUNC_DIGEST_FREECTX));
    f.set_params = OSSL_FUNC_digest_set_ctx_params(
        digest_entry(prov, name, OSSL_FUNC_DIGEST_SET_CTX_PARAMS));
    return f;
}

/* Checks that no xoflen is recorded for the next final of `dctx` (a hash
 * of "abc" of `dlen` bytes): a long digest's final is refused even with
 * `xoflen`, the size_t a good xoflen would have been read from, holding the
 * digest size; a short digest's final succeeds with another size_t (with
 * an xoflen recorded, both would go the other way). */
static void no_xoflen(const struct digest_fns *f, void *dctx, size_t *xoflen, size_t dlen,
                      const unsigned char *want, const char *what) {
    struct outbuf ob;
    *xoflen = dlen;
    if (dlen > EVP_MAX_MD_SIZE) {
        expect_error(f->final(dctx, out_prep(&ob, dlen), xoflen, dlen), "EVP_MAX_MD_SIZE", what);
        CHECK(*xoflen == 0);
        out_check(&ob, 0, what);
    } else {
        size_t other = GARBAGE_LEN;
        if (f->final(dctx, out_prep(&ob, dlen), &other, dlen) != 1 || other != dlen)
            fail(what);
        CHECK(memcmp(ob.bytes, want, dlen) == 0);
        out_check(&ob, dlen, what);
    }
}

/* The xoflen rules, for digest NAMES[i] of `dlen` bytes whose digest of
 * "abc" is `want`:
 *   - a `final` succeeds only if its outsz is the digest size and the
 *     xoflen set just before it, if any, was set for this very final: the
 *     size_t the xoflen was read from is the final's out-length and still
 *     holds the digest size (what EVP_DigestFinalXOF passes;
 *     EVP_DigestFinal_ex passes a local size_t set to 0);
 *   - PAVELOR-768/1024 also need such an xoflen (else "EVP_MAX_MD_SIZE");
 *   - an xoflen applies to the one final after it, is cleared by init and
 *     update, and is not copied by dupctx (EVP_MD_CTX_copy_ex). */
static void xoflen_rules(OSSL_PROVIDER *prov, int i, size_t dlen, const unsigned char *want) {
    void *provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    int long_digest = dlen > EVP_MAX_MD_SIZE;
    /* What EVP_DigestFinal_ex after a set xoflen fails with. */
    const char *refused = long_digest ? "EVP_MAX_MD_SIZE" : "xoflen was not set for this final";
    EVP_MD *md = EVP_MD_fetch(NULL, NAMES[i], NULL);
    CHECK(md != NULL);
    struct outbuf ob;
    size_t xoflen = dlen;
    OSSL_PARAM xof[] = {
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen),
        OSSL_PARAM_construct_end(),
    };
    char what[160];

    /* EVP_MD_CTX_set_params(xoflen = digest size), EVP_MD_CTX_copy_ex, then
     * EVP_DigestFinal_ex into an EVP_MAX_MD_SIZE buffer, on the copy and on
     * the original: refused, nothing written, length 0. (A PAVELOR-1024
     * answer would be 128 bytes in the 64-byte buffer: the canary's.) */
    {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
        CHECK(ctx != NULL && copy != NULL);
        CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1 && EVP_DigestUpdate(ctx, "abc", 3) == 1);
        CHECK(EVP_MD_CTX_set_params(ctx, xof) == 1);
        CHECK(EVP_MD_CTX_copy_ex(copy, ctx) == 1);
        unsigned int un = GARBAGE_LEN;
        int ok = EVP_DigestFinal_ex(copy, out_prep(&ob, EVP_MAX_MD_SIZE), &un);
        snprintf(what, sizeof what, "%s: set xoflen, copy, DigestFinal_ex on the copy", NAMES[i]);
        int finished = 1;
        if (long_digest) {
            /* The copy has no xoflen at all. */
            expect_error(ok, "EVP_MAX_MD_SIZE", what);
            CHECK(un == 0);
            out_check(&ob, 0, what);
            if (refinal_reaches_provider())
                CHECK(EVP_DigestFinalXOF(copy, out_prep(&ob, dlen), dlen) == 1);
            else
                finished = 0;
        } else {
            /* Not carried over: the copy finishes as if none was set. */
            CHECK(ok == 1 && un == dlen);
        }
        if (finished) {
            CHECK(memcmp(ob.bytes, want, dlen) == 0);
            out_check(&ob, dlen, what);
        } else {
            expect_evp_final_refused(EVP_DigestFinalXOF(copy, out_prep(&ob, dlen), dlen), what);
        }

        un = GARBAGE_LEN;
        snprintf(what, sizeof what, "%s: set xoflen, copy, DigestFinal_ex on the original",
                 NAMES[i]);
        expect_error(EVP_DigestFinal_ex(ctx, out_prep(&ob, EVP_MAX_MD_SIZE), &un), refused,
                     what);
        CHECK(un == 0);
        out_check(&ob, 0, what);
        /* The refusal used the xoflen up: Final_ex of a short digest now
         * works; a long one still needs EVP_DigestFinalXOF, which works.
         * (Where EVP lets a final after a failed one reach the provider.) */
        if (refinal_reaches_provider()) {
            if (long_digest) {
                un = GARBAGE_LEN;
                expect_error(EVP_DigestFinal_ex(ctx, out_prep(&ob, EVP_MAX_MD_SIZE), &un),
                             "EVP_MAX_MD_SIZE", what);
                CHECK(un == 0);
                out_check(&ob, 0, what);
            }
            CHECK(finish(ctx, &ob, dlen) && memcmp(ob.bytes, want, dlen) == 0);
        } else {
            expect_evp_final_refused(EVP_DigestFinalXOF(ctx, out_prep(&ob, dlen), dlen), what);
        }
        EVP_MD_CTX_free(copy);
        EVP_MD_CTX_free(ctx);
    }

    /* The same without a copy, and with the xoflen set on a copy (after
     * EVP_MD_CTX_copy_ex) instead: EVP_DigestFinal_ex is refused. */
    for (int on_copy = 0; on_copy < 2; on_copy++) {
        EVP_MD_CTX *src = EVP_MD_CTX_new(), *ctx = src;
        CHECK(src != NULL);
        CHECK(EVP_DigestInit_ex(src, md, NULL) == 1 && EVP_DigestUpdate(src, "abc", 3) == 1);
        if (on_copy) {
            ctx = EVP_MD_CTX_new();
            CHECK(ctx != NULL && EVP_MD_CTX_copy_ex(ctx, src) == 1);
        }
        CHECK(EVP_MD_CTX_set_params(ctx, xof) == 1);
        unsigned int un = GARBAGE_LEN;
        snprintf(what, sizeof what, "%s: set xoflen%s, DigestFinal_ex", NAMES[i],
                 on_copy ? " on a copy" : "");
        expect_error(EVP_DigestFinal_ex(ctx, out_prep(&ob, EVP_MAX_MD_SIZE), &un), refused,
                     what);
        CHECK(un == 0);
        out_check(&ob, 0, what);
        /* EVP_DigestFinalXOF with the digest size: works (where EVP lets
         * it reach the provider after the refusal). */
        if (refinal_reaches_provider()) {
            CHECK(EVP_DigestFinalXOF(ctx, out_prep(&ob, dlen), dlen) == 1);
            CHECK(memcmp(ob.bytes, want, dlen) == 0);
            out_check(&ob, dlen, what);
        } else {
            expect_evp_final_refused(EVP_DigestFinalXOF(ctx, out_prep(&ob, dlen), dlen), what);
        }
        if (on_copy) {
            CHECK(finish(src, &ob, dlen) && memcmp(ob.bytes, want, dlen) == 0);
            EVP_MD_CTX_free(ctx);
        }
        EVP_MD_CTX_free(src);
    }

    /* The provider's functions called as each EVP function calls them;
     * each case starts on a fresh hash of "abc". */
    {
        struct digest_fns f = digest_fns(prov, NAMES[i]);
        void *dctx = f.newctx(provctx);
        CHECK(dctx != NULL);
        size_t n;
#define RESTART()                                                                                  \
    CHECK(f.init(dctx, NULL) == 1 && f.update(dctx, (const unsigned char *)"abc", 3) == 1)

        /* outsz must be the digest size; each failure sets *outl = 0. */
        RESTART();
        n = GARBAGE_LEN;
        expect_error(f.final(dctx, out_prep(&ob, dlen + 1), &n, dlen + 1), "not the digest size",
                     "provider final with outsz = size + 1");
        CHECK(n == 0);
        out_check(&ob, 0, "provider final with outsz = size + 1");
        n = GARBAGE_LEN;
        expect_error(f.final(dctx, out_prep(&ob, dlen - 1), &n, dlen - 1),
                     "smaller than the digest", "provider final with outsz = size - 1");
        CHECK(n == 0);
        out_check(&ob, 0, "provider final with outsz = size - 1");
        n = GARBAGE_LEN;
        expect_error(f.final(dctx, NULL, &n, dlen), "NULL pointer", "provider final, out = NULL");
        CHECK(n == 0);
        expect_error(f.final(dctx, out_prep(&ob, dlen), NULL, dlen), "NULL pointer",
                     "provider final, outl = NULL");
        out_check(&ob, 0, "provider final, outl = NULL");
        xoflen = dlen + 1;
        expect_error(f.set_params(dctx, xof), "bad parameter", "set xoflen = size + 1");
        no_xoflen(&f, dctx, &xoflen, dlen, want, "provider final after a refused xoflen");

        /* EVP_DigestFinal_ex's way: outl is another size_t, holding 0. */
        RESTART();
        xoflen = dlen;
        CHECK(f.set_params(dctx, xof) == 1);
        n = 0;
        expect_error(f.final(dctx, out_prep(&ob, dlen), &n, dlen), refused,
                     "provider final after xoflen, outl another size_t");
        CHECK(n == 0);
        out_check(&ob, 0, "provider final after xoflen, outl another size_t");
        /* The same size_t, no longer holding the digest size (as when
         * EVP_DigestFinal_ex's local lands where an earlier xoflen was). */
        RESTART();
        CHECK(f.set_params(dctx, xof) == 1);
        xoflen = 0;
        expect_error(f.final(dctx, out_prep(&ob, dlen), &xoflen, dlen), refused,
                     "provider final after xoflen, its size_t changed to 0");
        CHECK(xoflen == 0);
        out_check(&ob, 0, "provider final after xoflen, its size_t changed to 0");
        /* An update between the xoflen and the final clears it. */
        RESTART();
        xoflen = dlen;
        CHECK(f.set_params(dctx, xof) == 1);
        CHECK(f.update(dctx, (const unsigned char *)"", 0) == 1);
        no_xoflen(&f, dctx, &xoflen, dlen, want, "provider final after xoflen and update");
        /* So does init. */
        xoflen = dlen;
        CHECK(f.set_params(dctx, xof) == 1);
        RESTART();
        no_xoflen(&f, dctx, &xoflen, dlen, want, "provider final after xoflen and init");
        /* A failed final uses the xoflen up. */
        RESTART();
        xoflen = dlen;
        CHECK(f.set_params(dctx, xof) == 1);
        expect_error(f.final(dctx, NULL, &xoflen, dlen), "NULL pointer",
                     "provider final after xoflen, out = NULL");
        CHECK(xoflen == 0);
        no_xoflen(&f, dctx, &xoflen, dlen, want, "second provider final after one xoflen");
        /* dupctx does not copy the xoflen; the source keeps it. */
        RESTART();
        xoflen = dlen;
        CHECK(f.set_params(dctx, xof) == 1);
        void *dup = f.dupctx(dctx);
        CHECK(dup != NULL);
        no_xoflen(&f, dup, &xoflen, dlen, want, "provider final on a dupctx copy after xoflen");
        f.freectx(dup);
        /* EVP_DigestFinalXOF's way: outl is the size_t the xoflen was read
         * from, holding the digest size. */
        xoflen = dlen;
        CHECK(f.final(dctx, out_prep(&ob, dlen), &xoflen, dlen) == 1 && xoflen == dlen);
        CHECK(memcmp(ob.bytes, want, dlen) == 0);
        out_check(&ob, dlen, "provider final as EVP_DigestFinalXOF calls it");
        /* Finished: not initialized, even with a good xoflen. */
        CHECK(f.set_params(dctx, xof) == 1);
        expect_error(f.final(dctx, out_prep(&ob, dlen), &xoflen, dlen), "not initialized",
                     "provider final after final");
        CHECK(xoflen == 0);
        out_check(&ob, 0, "provider final after final");
#undef RESTART
        CHECK(ERR_peek_error() == 0);
        f.freectx(dctx);
    }
    EVP_MD_free(md);
}

static void errors_mode(void) {
    OSSL_PROVIDER *prov = load_pavelor(NULL);
    void *provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    struct outbuf ob;
    size_t n = 0;
    ERR_clear_error();

    for (int i = 0; i < 3; i++) {
        EVP_MD *md = EVP_MD_fetch(NULL, NAMES[i], NULL);
        CHECK(md != NULL);
        size_t dlen = (size_t)EVP_MD_get_size(md);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        CHECK(ctx != NULL);
        OSSL_FUNC_digest_digest_fn *oneshot = oneshot_fn(prov, NAMES[i]);
        unsigned char want[MAX_DIGEST];
        CHECK(oneshot(provctx, (const unsigned char *)"abc", 3, want, &n, dlen) == 1);

        CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1);
        expect_error(EVP_DigestUpdate(ctx, NULL, 5), "NULL pointer", "update(NULL, 5)");
        CHECK(EVP_DigestUpdate(ctx, NULL, 0) == 1); /* empty update is fine */
        CHECK(EVP_DigestUpdate(ctx, "abc", 3) == 1);
        unsigned int un = GARBAGE_LEN;
        expect_error(EVP_DigestFinal_ex(ctx, NULL, &un), "NULL pointer", "final(NULL)");
        CHECK(un == 0);
        after_failed_final(ctx, md, "final after final(NULL)");
        expect_error(EVP_DigestFinalXOF(ctx, out_prep(&ob, dlen - 1), dlen - 1), "bad parameter",
                     "DigestFinalXOF(size - 1)");
        out_check(&ob, 0, "DigestFinalXOF(size - 1)");
        after_failed_final(ctx, md, "final after DigestFinalXOF(size - 1)");
        if (dlen > EVP_MAX_MD_SIZE) {
            /* Would overflow callers' EVP_MAX_MD_SIZE buffers: refused. */
            un = GARBAGE_LEN;
            expect_error(EVP_DigestFinal_ex(ctx, out_prep(&ob, EVP_MAX_MD_SIZE), &un),
                         "EVP_MAX_MD_SIZE", "DigestFinal_ex of a digest > EVP_MAX_MD_SIZE");
            CHECK(un == 0);
            out_check(&ob, 0, "DigestFinal_ex of a digest > EVP_MAX_MD_SIZE");
            after_failed_final(ctx, md, "final after a refused DigestFinal_ex");
            un = GARBAGE_LEN;
            expect_error(EVP_Digest("abc", 3, out_prep(&ob, EVP_MAX_MD_SIZE), &un, md, NULL),
                         "EVP_MAX_MD_SIZE", "EVP_Digest of a digest > EVP_MAX_MD_SIZE");
            CHECK(un == 0);
            out_check(&ob, 0, "EVP_Digest of a digest > EVP_MAX_MD_SIZE");
        } else {
            /* EVP_DigestFinalXOF with the digest size serves a short digest
             * too (on a copy: the context is finished below). */
            EVP_MD_CTX *copy = EVP_MD_CTX_new();
            CHECK(copy != NULL && EVP_MD_CTX_copy_ex(copy, ctx) == 1);
            CHECK(EVP_DigestFinalXOF(copy, out_prep(&ob, dlen), dlen) == 1);
            CHECK(memcmp(ob.bytes, want, dlen) == 0);
            out_check(&ob, dlen, "DigestFinalXOF of a short digest");
            EVP_MD_CTX_free(copy);
        }
        /* The failures above did not consume the context (on 3.0; later
         * lines had it set up again after each, see after_failed_final). */
        CHECK(finish(ctx, &ob, dlen) && memcmp(ob.bytes, want, dlen) == 0);
        CHECK(ERR_peek_error() == 0);
        /* Final again without init: the provider says not initialized
         * (raised in digest.rs) where EVP lets the call through. */
        if (refinal_reaches_provider()) {
            CHECK(!finish(ctx, &ob, dlen));
            expect_error_site("digest.rs", "digest_final", "final after final");
            expect_error(0, "not initialized", "final after final");
        } else {
            /* EVP's refusal leaves the length as it was: not `finish`. */
            unsigned char b[MAX_DIGEST];
            unsigned int un2 = 0;
            expect_evp_final_refused(dlen <= EVP_MAX_MD_SIZE
                                         ? EVP_DigestFinal_ex(ctx, b, &un2)
                                         : EVP_DigestFinalXOF(ctx, b, dlen),
                                     "final after final");
        }

        /* The provider's one-shot function: NULL and short buffers; every
         * failure sets *outl = 0. */
        n = GARBAGE_LEN;
        expect_error(oneshot(provctx, (const unsigned char *)"abc", 3, out_prep(&ob, dlen - 1), &n,
                             dlen - 1),
                     "smaller than the digest", "one-shot with outsz = size - 1");
        CHECK(n == 0);
        out_check(&ob, 0, "one-shot with outsz = size - 1");
        /* Exactly the digest size: a larger outsz asks for an XOF output. */
        n = GARBAGE_LEN;
        expect_error(oneshot(provctx, (const unsigned char *)"abc", 3, out_prep(&ob, dlen + 1), &n,
                             dlen + 1),
                     "not the digest size", "one-shot with outsz = size + 1");
        CHECK(n == 0);
        out_check(&ob, 0, "one-shot with outsz = size + 1");
        n = GARBAGE_LEN;
        expect_error(oneshot(provctx, (const unsigned char *)"abc", 3, NULL, &n, dlen),
                     "NULL pointer", "one-shot with out = NULL");
        CHECK(n == 0);
        expect_error(oneshot(provctx, (const unsigned char *)"abc", 3, out_prep(&ob, dlen), NULL,
                             dlen),
                     "NULL pointer", "one-shot with outl = NULL");
        out_check(&ob, 0, "one-shot with outl = NULL");
        n = GARBAGE_LEN;
        expect_error(oneshot(provctx, NULL, 3, out_prep(&ob, dlen), &n, dlen), "NULL pointer",
                     "one-shot with in = NULL, inl = 3");
        CHECK(n == 0);
        out_check(&ob, 0, "one-shot with in = NULL, inl = 3");
        CHECK(oneshot(provctx, NULL, 0, out_prep(&ob, dlen), &n, dlen) == 1 && n == dlen);
        out_check(&ob, dlen, "one-shot of the empty message");
        n = GARBAGE_LEN;
        /* No provctx: plain failure, length 0. */
        CHECK(oneshot(NULL, NULL, 0, out_prep(&ob, dlen), &n, dlen) == 0 && n == 0);
        out_check(&ob, 0, "one-shot without provctx");
        ERR_clear_error();

        xoflen_rules(prov, i, dlen, want);

        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }

    /* PAVELOR-HMAC: no digest chosen, short output buffer, final twice. */
    {
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "PAVELOR-HMAC", NULL);
        CHECK(mac != NULL);
        EVP_MAC_CTX *m = EVP_MAC_CTX_new(mac);
        CHECK(m != NULL);
        /* Reported at the entry point in mac.rs (not in boundary.rs, which
         * raises it); the text names the MAC's digest. */
        CHECK(EVP_MAC_init(m, (const unsigned char *)"k", 1, NULL) == 0);
        expect_error_site("mac.rs", "mac_init", "MAC init without a digest");
        expect_error(0, "PAVELOR-HMAC needs its digest", "MAC init without a digest");
        OSSL_PARAM bad[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
            OSSL_PARAM_construct_end(),
        };
        expect_error(EVP_MAC_CTX_set_params(m, bad), "bad parameter", "MAC digest SHA256");
        OSSL_PARAM good[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"PAVELOR-768", 0),
            OSSL_PARAM_construct_end(),
        };
        CHECK(EVP_MAC_CTX_set_params(m, good) == 1);
        CHECK(EVP_MAC_CTX_get_mac_size(m) == 96);
        CHECK(EVP_MAC_init(m, (const unsigned char *)"k", 1, NULL) == 1);
        expect_error(EVP_MAC_update(m, NULL, 2), "NULL pointer", "MAC update(NULL, 2)");
        CHECK(EVP_MAC_update(m, (const unsigned char *)"abc", 3) == 1);
        unsigned char tag[MAX_DIGEST];
        n = GARBAGE_LEN;
        CHECK(EVP_MAC_final(m, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == 96);
        out_check(&ob, n, "MAC final");
        memcpy(tag, ob.bytes, 96);
        /* Final again: refused, with *outl = 0 (EVP_MAC_final copies the
         * provider's length from an uninitialised local). */
        n = GARBAGE_LEN;
        expect_error(EVP_MAC_final(m, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST),
                     "not initialized", "MAC final twice");
        CHECK(n == 0);
        out_check(&ob, 0, "MAC final twice");
        /* A copy of the finished context is finished too: final, update
         * refused; init restarts it with the same key. */
        EVP_MAC_CTX *d = EVP_MAC_CTX_dup(m);
        CHECK(d != NULL);
        n = GARBAGE_LEN;
        expect_error(EVP_MAC_final(d, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST),
                     "not initialized", "MAC final on a copy of a finished context");
        CHECK(n == 0);
        out_check(&ob, 0, "MAC final on a copy of a finished context");
        expect_error(EVP_MAC_update(d, (const unsigned char *)"abc", 3), "not initialized",
                     "MAC update on a copy of a finished context");
        /* Setting the digest again (the same one) does not restart it. */
        CHECK(EVP_MAC_CTX_set_params(d, good) == 1);
        n = GARBAGE_LEN;
        expect_error(EVP_MAC_final(d, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST),
                     "not initialized", "MAC final on a finished copy after set_params");
        CHECK(n == 0);
        out_check(&ob, 0, "MAC final on a finished copy after set_params");
        CHECK(EVP_MAC_init(d, NULL, 0, NULL) == 1);
        CHECK(EVP_MAC_update(d, (const unsigned char *)"abc", 3) == 1);
        n = GARBAGE_LEN;
        CHECK(EVP_MAC_final(d, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == 96);
        CHECK(memcmp(ob.bytes, tag, 96) == 0);
        out_check(&ob, n, "MAC final on a restarted copy");
        EVP_MAC_CTX_free(d);
        /* Final, then update without init: "context not initialized", from
         * mac.rs (no "digest context" for a MAC). */
        CHECK(EVP_MAC_update(m, (const unsigned char *)"x", 1) == 0);
        expect_error_site("mac.rs", "mac_update", "MAC update after final");
        expect_error(0, "context not initialized", "MAC update after final");
        CHECK(EVP_MAC_init(m, NULL, 0, NULL) == 1);
        /* EVP checks the size before the provider sees it. */
        expect_any_error(EVP_MAC_final(m, out_prep(&ob, 95), &n, 95), "MAC final with outsize 95");
        out_check(&ob, 0, "MAC final with outsize 95");
        CHECK(EVP_MAC_final(m, out_prep(&ob, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == 96);
        out_check(&ob, n, "MAC final after init");
        CHECK(ERR_peek_error() == 0);
        EVP_MAC_CTX_free(m);
        EVP_MAC_free(mac);
    }
    CHECK(OSSL_PROVIDER_unload(prov) == 1);
    printf("errors: NULL, short-buffer, long-digest, xoflen and state errors raised on the queue, "
           "out-lengths 0, canaries intact OK\n");
}

static void hmac_mode(int argc, char **argv) {
    if (argc != 7)
        fail("usage: hmac KEYHEX MSGHEX TAG512 TAG768 TAG1024");
    OSSL_PROVIDER *prov = load_pavelor(NULL);
    OSSL_PROVIDER *dflt = OSSL_PROVIDER_load(NULL, "default");
    CHECK(dflt != NULL);
    static unsigned char key[4096], msg[65536];
    size_t keylen = unhex(argv[2], key, sizeof key);
    size_t msglen = unhex(argv[3], msg, sizeof msg);

    for (int i = 0; i < 3; i++) {
        unsigned char want[MAX_DIGEST];
        struct outbuf got, got2;
        size_t wlen = unhex(argv[4 + i], want, sizeof want), n = 0;

        CHECK(EVP_Q_mac(NULL, "PAVELOR-HMAC", NULL, NAMES[i], NULL, key, keylen, msg, msglen,
                        out_prep(&got, MAX_DIGEST), MAX_DIGEST, &n) != NULL);
        CHECK(n == wlen && memcmp(got.bytes, want, wlen) == 0);
        out_check(&got, n, "EVP_Q_mac");

        /* Streamed, duplicated midway. */
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC-PAVELOR", "provider=pavelor");
        CHECK(mac != NULL);
        EVP_MAC_CTX *m = EVP_MAC_CTX_new(mac);
        CHECK(m != NULL);
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)NAMES[i], 0),
            OSSL_PARAM_construct_end(),
        };
        CHECK(EVP_MAC_init(m, key, keylen, params) == 1);
        size_t half = msglen / 2;
        for (size_t p = 0; p < half; p += 7)
            CHECK(EVP_MAC_update(m, msg + p, half - p < 7 ? half - p : 7) == 1);
        EVP_MAC_CTX *d = EVP_MAC_CTX_dup(m);
        CHECK(d != NULL);
        CHECK(EVP_MAC_update(m, msg + half, msglen - half) == 1);
        CHECK(EVP_MAC_update(d, msg + half, msglen - half) == 1);
        CHECK(EVP_MAC_final(m, out_prep(&got, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == wlen);
        out_check(&got, n, "EVP_MAC_final");
        CHECK(EVP_MAC_final(d, out_prep(&got2, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == wlen);
        out_check(&got2, n, "EVP_MAC_final of the copy");
        CHECK(memcmp(got.bytes, want, wlen) == 0 && memcmp(got2.bytes, want, wlen) == 0);
        /* A tag-sized buffer is enough. */
        CHECK(EVP_MAC_init(m, NULL, 0, NULL) == 1);
        CHECK(EVP_MAC_update(m, msg, msglen) == 1);
        CHECK(EVP_MAC_final(m, out_prep(&got, wlen), &n, wlen) == 1 && n == wlen);
        CHECK(memcmp(got.bytes, want, wlen) == 0);
        out_check(&got, n, "EVP_MAC_final into a tag-sized buffer");
        /* Re-init without a key reuses it. */
        CHECK(EVP_MAC_init(m, NULL, 0, NULL) == 1);
        CHECK(EVP_MAC_update(m, msg, msglen) == 1);
        CHECK(EVP_MAC_final(m, out_prep(&got, MAX_DIGEST), &n, MAX_DIGEST) == 1 &&
              memcmp(got.bytes, want, wlen) == 0);
        out_check(&got, n, "EVP_MAC_final after init without a key");
        EVP_MAC_CTX_free(d);
        EVP_MAC_CTX_free(m);
        EVP_MAC_free(mac);

        /* OpenSSL's own HMAC cannot serve Pavelor (192-byte block > its
         * 144-byte key buffer; > 64-byte digests refused by the provider
         * instead of overflowing HMAC's EVP_MAX_MD_SIZE buffer): it must fail
         * cleanly, never crash or return a wrong tag. */
        ERR_clear_error();
        CHECK(EVP_Q_mac(NULL, "HMAC", "provider=default", NAMES[i], NULL, key, keylen, msg,
                        msglen, out_prep(&got, MAX_DIGEST), MAX_DIGEST, &n) == NULL);
        out_check(&got, MAX_DIGEST, "OpenSSL's HMAC refusing");
        /* PAVELOR-512 trips an internal size check in HMAC_Init_ex that
         * returns 0 without queueing an error; the longer ones get the
         * provider's EVP_MAX_MD_SIZE error. */
        CHECK(i == 0 || ERR_peek_error() != 0);
        ERR_clear_error();
    }
    CHECK(OSSL_PROVIDER_unload(dflt) == 1);
    CHECK(OSSL_PROVIDER_unload(prov) == 1);
    printf("hmac: PAVELOR-HMAC (EVP_Q_mac, streamed with dup) equals the definition for all "
           "three instances; OpenSSL's HMAC refuses them cleanly OK\n");
}

struct thread_arg {
    int id;
    int ok;
};

static void *hash_thread(void *p) {
    struct thread_arg *arg = p;
    arg->ok = 0;
    for (int r = 0; r < 20; r++) {
        for (size_t k = 0; k < N_KATS; k++) {
            const struct kat_vector *v = &KAT_VECTORS[(k + (size_t)arg->id) % N_KATS];
            unsigned char msg[MAX_MSG], want[MAX_DIGEST];
            struct outbuf got;
            size_t len = unhex(v->msg_hex, msg, sizeof msg);
            size_t dlen = unhex(v->digest_hex, want, sizeof want);
            EVP_MD *md = EVP_MD_fetch(NULL, v->name, NULL);
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            int good = md != NULL && ctx != NULL && EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
                       EVP_DigestUpdate(ctx, msg, len) == 1 && finish(ctx, &got, dlen) &&
                       memcmp(got.bytes, want, dlen) == 0;
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
            if (!good)
                return NULL;
        }
    }
    arg->ok = 1;
    return NULL;
}

/* One mid-message digest context and one MAC context, copied from by
 * several threads at once (OpenSSL declares the source of
 * EVP_MD_CTX_copy_ex and EVP_MAC_CTX_dup `const`). */
struct shared_src {
    const EVP_MD_CTX *md;
    const EVP_MAC_CTX *mac;
    const unsigned char *rest;
    size_t rest_len, dlen;
    const unsigned char *want, *want_tag;
    int ok[64];
};

static struct shared_src SHARED;

static void *copy_thread(void *p) {
    int id = *(int *)p;
    SHARED.ok[id] = 0;
    for (int r = 0; r < 200; r++) {
        struct outbuf got;
        size_t n = 0;
        EVP_MD_CTX *c = EVP_MD_CTX_new();
        int good = c != NULL && EVP_MD_CTX_copy_ex(c, SHARED.md) == 1 &&
                   EVP_DigestUpdate(c, SHARED.rest, SHARED.rest_len) == 1 &&
                   finish(c, &got, SHARED.dlen) &&
                   memcmp(got.bytes, SHARED.want, SHARED.dlen) == 0;
        EVP_MD_CTX_free(c);
        EVP_MAC_CTX *m = good ? EVP_MAC_CTX_dup(SHARED.mac) : NULL;
        good = m != NULL && EVP_MAC_update(m, SHARED.rest, SHARED.rest_len) == 1 &&
               EVP_MAC_final(m, out_prep(&got, MAX_DIGEST), &n, MAX_DIGEST) == 1 &&
               n == SHARED.dlen && memcmp(got.bytes, SHARED.want_tag, n) == 0;
        if (good)
            out_check(&got, n, "EVP_MAC_final in a thread");
        EVP_MAC_CTX_free(m);
        if (!good)
            return NULL;
    }
    SHARED.ok[id] = 1;
    return NULL;
}

static void concurrent_copies(int nthreads) {
    const struct kat_vector *v = &KAT_VECTORS[N_KATS - 1];
    static unsigned char msg[MAX_MSG], want[MAX_DIGEST];
    static struct outbuf tag;
    size_t len = unhex(v->msg_hex, msg, sizeof msg);
    size_t dlen = unhex(v->digest_hex, want, sizeof want), n = 0;
    size_t half = len / 2;
    EVP_MD *md = EVP_MD_fetch(NULL, v->name, NULL);
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "PAVELOR-HMAC", NULL);
    CHECK(md != NULL && mac != NULL);
    EVP_MD_CTX *src = EVP_MD_CTX_new();
    EVP_MAC_CTX *msrc = EVP_MAC_CTX_new(mac);
    CHECK(src != NULL && msrc != NULL);
    CHECK(EVP_DigestInit_ex(src, md, NULL) == 1 && EVP_DigestUpdate(src, msg, half) == 1);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)v->name, 0),
        OSSL_PARAM_construct_end(),
    };
    /* The expected tag: computed in one go first. */
    CHECK(EVP_MAC_init(msrc, (const unsigned char *)"key", 3, params) == 1);
    CHECK(EVP_MAC_update(msrc, msg, len) == 1);
    CHECK(EVP_MAC_final(msrc, out_prep(&tag, MAX_DIGEST), &n, MAX_DIGEST) == 1 && n == dlen);
    out_check(&tag, n, "EVP_MAC_final of the shared context");
    CHECK(EVP_MAC_init(msrc, NULL, 0, NULL) == 1 && EVP_MAC_update(msrc, msg, half) == 1);
    SHARED.md = src;
    SHARED.mac = msrc;
    SHARED.rest = msg + half;
    SHARED.rest_len = len - half;
    SHARED.dlen = dlen;
    SHARED.want = want;
    SHARED.want_tag = tag.bytes;
    pthread_t th[64];
    int ids[64];
    for (int t = 0; t < nthreads; t++) {
        ids[t] = t;
        CHECK(pthread_create(&th[t], NULL, copy_thread, &ids[t]) == 0);
    }
    for (int t = 0; t < nthreads; t++) {
        CHECK(pthread_join(th[t], NULL) == 0);
        CHECK(SHARED.ok[t] == 1);
    }
    EVP_MAC_CTX_free(msrc);
    EVP_MD_CTX_free(src);
    EVP_MAC_free(mac);
    EVP_MD_free(md);
}

static void stress_mode(int argc, char **argv) {
    if (argc != 4)
        fail("usage: stress ROUNDS THREADS");
    int rounds = atoi(argv[2]), nthreads = atoi(argv[3]);
    CHECK(rounds > 0 && nthreads > 0 && nthreads <= 64);

    /* Load, use, unload: in the default context and in fresh contexts. */
    for (int r = 0; r < rounds; r++) {
        OSSL_LIB_CTX *libctx = (r % 2) ? OSSL_LIB_CTX_new() : NULL;
        CHECK((r % 2) == 0 || libctx != NULL);
        OSSL_PROVIDER *prov = load_pavelor(libctx);
        const struct kat_vector *v = &KAT_VECTORS[(size_t)r % N_KATS];
        unsigned char msg[MAX_MSG], want[MAX_DIGEST];
        struct outbuf got;
        size_t len = unhex(v->msg_hex, msg, sizeof msg);
        size_t dlen = unhex(v->digest_hex, want, sizeof want);
        EVP_MD *md = EVP_MD_fetch(libctx, v->name, NULL);
        CHECK(md != NULL);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1 && EVP_DigestUpdate(ctx, msg, len) == 1);
        CHECK(finish(ctx, &got, dlen) && memcmp(got.bytes, want, dlen) == 0);
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
        CHECK(OSSL_PROVIDER_unload(prov) == 1);
        OSSL_LIB_CTX_free(libctx);
    }

    /* Several threads sharing the loaded provider. */
    OSSL_PROVIDER *prov = load_pavelor(NULL);
    pthread_t th[64];
    struct thread_arg args[64];
    for (int t = 0; t < nthreads; t++) {
        args[t].id = t;
        CHECK(pthread_create(&th[t], NULL, hash_thread, &args[t]) == 0);
    }
    for (int t = 0; t < nthreads; t++) {
        CHECK(pthread_join(th[t], NULL) == 0);
        CHECK(args[t].ok == 1);
    }
    concurrent_copies(nthreads);
    CHECK(OSSL_PROVIDER_unload(prov) == 1);
    printf("stress: %d load/use/unload rounds, %d threads x 20 x %zu digests, %d threads x 200 "
           "copies of one digest and one MAC context OK\n",
           rounds, nthreads, N_KATS, nthreads);
}

int main(int argc, char **argv) {
    if (argc < 2)
        fail("usage: evp_pavelor kat|errors|hmac|stress ...");
    if (strcmp(argv[1], "kat") == 0)
        kat_mode();
    else if (strcmp(argv[1], "errors") == 0)
        errors_mode();
    else if (strcmp(argv[1], "hmac") == 0)
        hmac_mode(argc, argv);
    else if (strcmp(argv[1], "stress") == 0)
        stress_mode(argc, argv);
    else
        fail("unknown mode");
    return 0;
}
