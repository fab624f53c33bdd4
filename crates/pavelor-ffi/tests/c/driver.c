/*
 * ICCS-level test of one CryptHash library (one instance).
 *
 *   driver KAT_2_12_<instance>.txt [expected_record_count]
 *
 * Compiled against the generated CryptHash_AlgorithmInstance.h of the
 * instance and linked with its libCryptHash.so or libCryptHash.a. Checks
 * every record of the KAT file (digest, Dst_Len), then the error contract.
 * Prints one line per failure and a summary; exit status 0 iff all passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CryptHash_AlgorithmInstance.h"

#define DIGEST_BYTES (DIGEST_BIT_LENGTH / 8)
#define MAX_MSG_BYTES 4096 /* KAT_2_12 messages are at most 512 bytes */
#define LINE_MAX_LEN (2 * MAX_MSG_BYTES + 64)

static int failures = 0;

static void fail(const char *what, unsigned long long msg_len_bits)
{
    if (failures < 20)
        fprintf(stderr, "FAIL: %s (Msg_Len = %llu)\n", what, msg_len_bits);
    failures++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decodes hex into out (capacity cap); returns the byte count or -1. */
static long unhex(const char *hex, unsigned char *out, size_t cap)
{
    size_t n = strlen(hex), i;
    if (n % 2 != 0 || n / 2 > cap) return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

/* If line is "<key> = <value>", returns value (without the newline). */
static char *field(char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0 || strncmp(line + k, " =", 2) != 0) return NULL;
    line += k + 2;
    if (*line == ' ') line++;
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

/* Runs the KAT file; returns the number of records checked, -1 on I/O error. */
static long run_kat(const char *path, unsigned char empty_digest[DIGEST_BYTES])
{
    static char line[LINE_MAX_LEN];
    static unsigned char msg[MAX_MSG_BYTES];
    unsigned char expect[DIGEST_BYTES], got[DIGEST_BYTES];
    unsigned long long msg_len = 0;
    long msg_bytes = -1, dst_len = -1, records = 0;
    char *v;
    FILE *f = fopen(path, "r");

    if (!f) {
        perror(path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "%s: line too long\n", path);
            fclose(f);
            return -1;
        }
        if ((v = field(line, "Msg_Len"))) {
            msg_len = strtoull(v, NULL, 10);
            msg_bytes = dst_len = -1;
        } else if ((v = field(line, "Msg"))) {
            msg_bytes = unhex(v, msg, sizeof msg);
            if (msg_bytes < 0 || (unsigned long long)msg_bytes != (msg_len + 7) / 8)
                fail("bad Msg field", msg_len);
        } else if ((v = field(line, "Dst_Len"))) {
            dst_len = strtol(v, NULL, 10);
            if (dst_len != DIGEST_BIT_LENGTH) fail("Dst_Len != DIGEST_BIT_LENGTH", msg_len);
        } else if ((v = field(line, "Dst"))) {
            int rc;
            if (unhex(v, expect, sizeof expect) != DIGEST_BYTES) {
                fail("bad Dst field", msg_len);
                continue;
            }
            if (msg_bytes < 0 || dst_len < 0) {
                fail("incomplete record", msg_len);
                continue;
            }
            memset(got, 0, sizeof got);
            rc = CryptHash(DIGEST_BIT_LENGTH, msg_len ? msg : NULL, msg_len, got);
            if (rc != CRYPTHASH_OK)
                fail("CryptHash returned non-zero", msg_len);
            else if (memcmp(got, expect, DIGEST_BYTES) != 0)
                fail("digest mismatch", msg_len);
            if (msg_len == 0) memcpy(empty_digest, expect, DIGEST_BYTES);
            records++;
        }
    }
    if (ferror(f)) {
        perror(path);
        fclose(f);
        return -1;
    }
    fclose(f);
    return records;
}

/* Expects CryptHash to return `want`, leaving the 0xA5-filled digest alone. */
static void expect_error(const char *what, int want, int digest_len_bits,
                         const unsigned char *msg, unsigned long long msg_len_bits,
                         int null_digest)
{
    unsigned char out[128 + 16];
    int rc;
    memset(out, 0xA5, sizeof out);
    rc = CryptHash(digest_len_bits, msg, msg_len_bits, null_digest ? NULL : out);
    if (rc != want) {
        fprintf(stderr, "FAIL: %s: CryptHash returned %d, expected %d\n", what, rc, want);
        failures++;
    } else if (!all_bytes(out, sizeof out, 0xA5)) {
        fprintf(stderr, "FAIL: %s: digest buffer written on error\n", what);
        failures++;
    }
}

static void error_cases(const unsigned char empty_digest[DIGEST_BYTES])
{
    static const int instance_bits[3] = {512, 768, 1024};
    static const int odd_bits[6] = {0, -1, 256, DIGEST_BIT_LENGTH - 8,
                                     DIGEST_BIT_LENGTH + 8, -DIGEST_BIT_LENGTH};
    const unsigned char abc[3] = {'a', 'b', 'c'};
    unsigned char out[DIGEST_BYTES];
    int i, others = 0;
    char what[96];

    expect_error("NULL digest", CRYPTHASH_ERR_NULL_POINTER, DIGEST_BIT_LENGTH, abc, 24, 1);
    expect_error("NULL digest, empty msg", CRYPTHASH_ERR_NULL_POINTER, DIGEST_BIT_LENGTH,
                 NULL, 0, 1);
    expect_error("NULL msg, 1 bit", CRYPTHASH_ERR_NULL_POINTER, DIGEST_BIT_LENGTH, NULL, 1, 0);
    expect_error("NULL msg, 8 bits", CRYPTHASH_ERR_NULL_POINTER, DIGEST_BIT_LENGTH, NULL, 8, 0);
    expect_error("NULL msg, huge length", CRYPTHASH_ERR_NULL_POINTER, DIGEST_BIT_LENGTH, NULL,
                 ~0ULL, 0);

    for (i = 0; i < 3; i++) {
        if (instance_bits[i] == DIGEST_BIT_LENGTH) continue;
        snprintf(what, sizeof what, "digest_len_bits = %d (other instance)", instance_bits[i]);
        expect_error(what, CRYPTHASH_ERR_DIGEST_LENGTH, instance_bits[i], abc, 24, 0);
        others++;
    }
    if (others != 2) {
        fprintf(stderr, "FAIL: DIGEST_BIT_LENGTH %d is not an instance length\n",
                DIGEST_BIT_LENGTH);
        failures++;
    }
    for (i = 0; i < 6; i++) {
        snprintf(what, sizeof what, "digest_len_bits = %d", odd_bits[i]);
        expect_error(what, CRYPTHASH_ERR_DIGEST_LENGTH, odd_bits[i], abc, 24, 0);
    }

    /* NULL msg with length 0 is the empty message and succeeds. */
    memset(out, 0xA5, sizeof out);
    if (CryptHash(DIGEST_BIT_LENGTH, NULL, 0, out) != CRYPTHASH_OK ||
        memcmp(out, empty_digest, DIGEST_BYTES) != 0) {
        fprintf(stderr, "FAIL: NULL msg with msg_len_bits = 0\n");
        failures++;
    }
}

int main(int argc, char **argv)
{
    unsigned char empty_digest[DIGEST_BYTES];
    long records, want = -1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s KAT_2_12_<instance>.txt [expected_record_count]\n", argv[0]);
        return 2;
    }
    if (argc == 3) want = strtol(argv[2], NULL, 10);
    if (strcmp(CryptHash_AlgorithmInstance(), ALGORITHM_INSTANCE) != 0) {
        fprintf(stderr, "FAIL: library is %s, header says %s\n",
                CryptHash_AlgorithmInstance(), ALGORITHM_INSTANCE);
        return 1;
    }
    memset(empty_digest, 0, sizeof empty_digest);
    records = run_kat(argv[1], empty_digest);
    if (records < 0) return 1;
    if (want >= 0 && records != want) {
        fprintf(stderr, "FAIL: %ld records checked, expected %ld\n", records, want);
        failures++;
    }
    error_cases(empty_digest);
    if (failures) {
        fprintf(stderr, "%s: %d failure(s)\n", ALGORITHM_INSTANCE, failures);
        return 1;
    }
    printf("%s: %ld KAT records OK, error cases OK\n", ALGORITHM_INSTANCE, records);
    return 0;
}
