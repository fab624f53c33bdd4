/*
 * The C library's test in C: every official vector of vectors.h one-shot
 * and streamed in odd chunks (ending in a partial byte where the length
 * has one), a copied hasher, final twice, reset, and every error code.
 * Prints one line per failure and "ok N checks" at the end; exits 1 on any
 * failure.
 */
#include <pavelor.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vectors.h"

static int failures;
static int checks;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        checks++;                                            \
        if (!(cond)) {                                       \
            failures++;                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                    \
            fputc('\n', stderr);                             \
        }                                                    \
    } while (0)

static size_t from_hex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = strlen(hex) / 2;
    if (n > cap) {
        fprintf(stderr, "vector longer than %zu bytes\n", cap);
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "bad hex in vectors.h\n");
            exit(2);
        }
        out[i] = (uint8_t)v;
    }
    return n;
}

static unsigned instance_of(const char *name) {
    const char *dash = strrchr(name, '-');
    return dash ? (unsigned)strtoul(dash + 1, NULL, 10) : 0;
}

/* Streams the message in chunks of 1, 2, 3, ... 7 bytes, then 61, 62, ...
 * (odd sizes that straddle every rate), the last partial byte alone. */
static int stream(pavelor_hasher *h, const uint8_t *msg, unsigned bits) {
    size_t whole = bits / 8, pos = 0, step = 1;
    while (pos < whole) {
        size_t n = step < whole - pos ? step : whole - pos;
        int rc = pavelor_update(h, msg + pos, n);
        if (rc != PAVELOR_OK) return rc;
        pos += n;
        step = step == 7 ? 61 : step + 1;
    }
    if (bits % 8) return pavelor_update_bits(h, msg + whole, bits % 8);
    return PAVELOR_OK;
}

static void vectors(void) {
    static uint8_t msg[1024], want[PAVELOR_MAX_DIGEST_BYTES];
    for (size_t i = 0; i < sizeof KAT_VECTORS / sizeof KAT_VECTORS[0]; i++) {
        const struct kat_vector *v = &KAT_VECTORS[i];
        unsigned inst = instance_of(v->name);
        size_t len = pavelor_digest_len(inst);
        from_hex(v->msg_hex, msg, sizeof msg);
        CHECK(from_hex(v->digest_hex, want, sizeof want) == len, "%s: digest length", v->name);

        uint8_t got[PAVELOR_MAX_DIGEST_BYTES];
        memset(got, 0, sizeof got);
        CHECK(pavelor_hash_bits(inst, msg, v->msg_bits, got, len) == PAVELOR_OK &&
                  memcmp(got, want, len) == 0,
              "%s %u bits: one-shot", v->name, v->msg_bits);
        if (v->msg_bits % 8 == 0) {
            memset(got, 0, sizeof got);
            CHECK(pavelor_hash(inst, msg, v->msg_bits / 8, got, sizeof got) == PAVELOR_OK &&
                      memcmp(got, want, len) == 0,
                  "%s %u bits: one-shot bytes", v->name, v->msg_bits);
        }

        pavelor_hasher h;
        CHECK(pavelor_init(&h, inst) == PAVELOR_OK, "init %u", inst);
        CHECK(pavelor_instance(&h) == inst, "instance %u", inst);
        CHECK(stream(&h, msg, v->msg_bits) == PAVELOR_OK, "%s: stream", v->name);
        pavelor_hasher copy = h;
        memset(got, 0, sizeof got);
        CHECK(pavelor_final(&h, got, len) == PAVELOR_OK && memcmp(got, want, len) == 0,
              "%s %u bits: streamed", v->name, v->msg_bits);
        memset(got, 0, sizeof got);
        CHECK(pavelor_final(&h, got, len) == PAVELOR_OK && memcmp(got, want, len) == 0,
              "%s %u bits: final again", v->name, v->msg_bits);
        memset(got, 0, sizeof got);
        CHECK(pavelor_final(&copy, got, len) == PAVELOR_OK && memcmp(got, want, len) == 0,
              "%s %u bits: copied hasher", v->name, v->msg_bits);

        /* Reset: the same message again gives the same digest. */
        CHECK(pavelor_reset(&h) == PAVELOR_OK, "reset");
        CHECK(stream(&h, msg, v->msg_bits) == PAVELOR_OK, "%s: stream after reset", v->name);
        memset(got, 0, sizeof got);
        CHECK(pavelor_final(&h, got, len) == PAVELOR_OK && memcmp(got, want, len) == 0,
              "%s %u bits: after reset", v->name, v->msg_bits);
        pavelor_wipe(&h);
        pavelor_wipe(&copy);
    }
}

static void errors(void) {
    uint8_t out[PAVELOR_MAX_DIGEST_BYTES + 1], byte = 0xa0;
    pavelor_hasher h;

    CHECK(pavelor_digest_len(512) == PAVELOR_512_BYTES, "digest_len 512");
    CHECK(pavelor_digest_len(768) == PAVELOR_768_BYTES, "digest_len 768");
    CHECK(pavelor_digest_len(1024) == PAVELOR_1024_BYTES, "digest_len 1024");
    CHECK(pavelor_digest_len(256) == 0, "digest_len 256");

    CHECK(pavelor_init(&h, 256) == PAVELOR_ERR_INSTANCE, "init 256");
    CHECK(pavelor_init(NULL, 512) == PAVELOR_ERR_NULL, "init NULL");
    CHECK(pavelor_hash(0, "", 0, out, sizeof out) == PAVELOR_ERR_INSTANCE, "hash instance 0");

    /* A zeroed (never initialised) and a wiped hasher are refused. */
    memset(&h, 0, sizeof h);
    CHECK(pavelor_update(&h, "a", 1) == PAVELOR_ERR_NOT_INITIALIZED, "update zeroed");
    CHECK(pavelor_final(&h, out, sizeof out) == PAVELOR_ERR_NOT_INITIALIZED, "final zeroed");
    CHECK(pavelor_instance(&h) == 0, "instance zeroed");
    CHECK(pavelor_init(&h, 768) == PAVELOR_OK, "init 768");
    pavelor_wipe(&h);
    CHECK(pavelor_reset(&h) == PAVELOR_ERR_NOT_INITIALIZED, "reset wiped");
    pavelor_wipe(NULL);

    /* NULL pointers; a NULL message is fine with length 0. */
    CHECK(pavelor_init(&h, 512) == PAVELOR_OK, "init 512");
    CHECK(pavelor_update(&h, NULL, 0) == PAVELOR_OK, "update NULL, 0");
    CHECK(pavelor_update(&h, NULL, 1) == PAVELOR_ERR_NULL, "update NULL, 1");
    CHECK(pavelor_update_bits(&h, NULL, 3) == PAVELOR_ERR_NULL, "update_bits NULL, 3");
    CHECK(pavelor_update(NULL, "a", 1) == PAVELOR_ERR_NULL, "update hasher NULL");
    CHECK(pavelor_final(&h, NULL, 64) == PAVELOR_ERR_NULL, "final out NULL");
    CHECK(pavelor_hash(512, NULL, 1, out, sizeof out) == PAVELOR_ERR_NULL, "hash NULL, 1");

    /* A short output buffer: an error, and not one byte written. */
    memset(out, 0x5a, sizeof out);
    CHECK(pavelor_final(&h, out, 63) == PAVELOR_ERR_OUTPUT_LEN, "final 63 bytes");
    CHECK(pavelor_hash(1024, "", 0, out, 127) == PAVELOR_ERR_OUTPUT_LEN, "hash 127 bytes");
    int untouched = 1;
    for (size_t i = 0; i < sizeof out; i++) untouched &= out[i] == 0x5a;
    CHECK(untouched, "a refused call wrote its output");
    /* A longer buffer gets exactly the digest. */
    CHECK(pavelor_final(&h, out, sizeof out) == PAVELOR_OK && out[64] == 0x5a,
          "final writes the digest only");

    /* After a partial byte, more bits are refused and change nothing. */
    uint8_t before[64], after[64];
    CHECK(pavelor_update_bits(&h, &byte, 3) == PAVELOR_OK, "3 bits");
    CHECK(pavelor_final(&h, before, sizeof before) == PAVELOR_OK, "final before");
    CHECK(pavelor_update_bits(&h, &byte, 3) == PAVELOR_ERR_AFTER_PARTIAL_BYTE, "bits after partial");
    CHECK(pavelor_update_bits(&h, &byte, 0) == PAVELOR_OK, "0 bits after partial");
    CHECK(pavelor_final(&h, after, sizeof after) == PAVELOR_OK && memcmp(before, after, 64) == 0,
          "a refused update changed the hasher");

    for (int code = 0; code <= 7; code++) {
        const char *m = pavelor_status_message(code);
        CHECK(m != NULL && m[0] != '\0', "status message %d", code);
    }
    CHECK(strcmp(pavelor_version(), PAVELOR_VERSION_STRING) == 0, "version %s", pavelor_version());
    CHECK(pavelor_backend() != NULL && pavelor_backend()[0] != '\0', "backend name");
}

int main(void) {
    vectors();
    errors();
    if (failures) {
        fprintf(stderr, "%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("ok %d checks (backend %s)\n", checks, pavelor_backend());
    return 0;
}
