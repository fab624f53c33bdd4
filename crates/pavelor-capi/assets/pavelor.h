/*
 * pavelor.h: Pavelor-512, Pavelor-768 and Pavelor-1024 (NGCC hash-22) for C.
 *
 * Link with `pkg-config --cflags --libs pavelor` (or, with CMake,
 * `find_package(pavelor)` and the target `pavelor::pavelor`).
 *
 * A hasher lives in memory the caller provides (on the stack, in a struct,
 * anywhere): no function here allocates. An instance is named by its digest
 * length in bits: 512, 768 or 1024. Messages are bit strings; byte input is
 * taken whole, and `pavelor_update_bits` takes the first `nbits` bits of its
 * bytes, most significant bit first, so the official known answers of every
 * bit length can be reproduced.
 *
 * Every function that can fail returns a `pavelor_status`: PAVELOR_OK (0) or
 * a positive error code, and then it has changed neither the hasher nor the
 * output. Nothing aborts the process. The hasher's implementation is chosen
 * once per process from what the CPU supports (AES-NI, VAES, AVX-512, the
 * Armv8 crypto extension, else a constant-time portable AES); every choice
 * computes the same digests in time independent of the message's bits.
 *
 * Thread safety: a hasher may be used by one thread at a time; different
 * hashers and the one-shot functions may be used concurrently.
 */
#ifndef PAVELOR_H
#define PAVELOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API version this header describes (the library's: pavelor_version). */
#define PAVELOR_VERSION_STRING "0.1.0"

/* Status codes. */
#define PAVELOR_OK 0
/* A pointer that must not be NULL was NULL (a NULL message is allowed only
 * with length 0). */
#define PAVELOR_ERR_NULL 1
/* The instance is not 512, 768 or 1024. */
#define PAVELOR_ERR_INSTANCE 2
/* The output buffer is shorter than the instance's digest. */
#define PAVELOR_ERR_OUTPUT_LEN 3
/* The hasher was never initialised by pavelor_init, or was wiped. */
#define PAVELOR_ERR_NOT_INITIALIZED 4
/* pavelor_update_bits with bits in it after an earlier call ended in a
 * partial byte: a partial byte must be the message's last. */
#define PAVELOR_ERR_AFTER_PARTIAL_BYTE 5
/* The bit count names more bytes than this machine can address. */
#define PAVELOR_ERR_TOO_LONG 6

typedef int pavelor_status;

/* Digest lengths in bytes, and the largest. */
#define PAVELOR_512_BYTES 64
#define PAVELOR_768_BYTES 96
#define PAVELOR_1024_BYTES 128
#define PAVELOR_MAX_DIGEST_BYTES 128

/* A hasher: opaque, fixed size, 8-byte aligned. Assignment and memcpy make
 * an independent copy of its state (for the digest of a common prefix).
 * Call pavelor_wipe when its message was secret. */
#define PAVELOR_HASHER_WORDS 128
typedef struct pavelor_hasher {
    uint64_t opaque[PAVELOR_HASHER_WORDS];
} pavelor_hasher;

/* The digest length of an instance in bytes, or 0 if `bits` is not an
 * instance. */
size_t pavelor_digest_len(unsigned bits);

/* Starts `hasher` on the empty message of the instance `bits`, whatever the
 * memory held before. */
pavelor_status pavelor_init(pavelor_hasher *hasher, unsigned bits);

/* Appends `len` bytes. `data` may be NULL if `len` is 0. After a partial
 * byte (pavelor_update_bits), the bytes are appended at the current bit
 * position. */
pavelor_status pavelor_update(pavelor_hasher *hasher, const void *data, size_t len);

/* Appends the first `nbits` bits of `data` (ceil(nbits / 8) bytes are read;
 * the unused low bits of the last byte are ignored). Only the message's last
 * call may end in a partial byte. */
pavelor_status pavelor_update_bits(pavelor_hasher *hasher, const void *data, uint64_t nbits);

/* Writes the digest of the message so far into `out` (the instance's
 * digest length, at most `out_len`: PAVELOR_ERR_OUTPUT_LEN if shorter). The
 * hasher is unchanged: more input may follow, and pavelor_final may be called
 * again. */
pavelor_status pavelor_final(const pavelor_hasher *hasher, uint8_t *out, size_t out_len);

/* Back to the empty message, same instance. */
pavelor_status pavelor_reset(pavelor_hasher *hasher);

/* Erases the hasher's memory (state, buffered input); it must then be
 * initialised again. Does nothing if `hasher` is NULL. */
void pavelor_wipe(pavelor_hasher *hasher);

/* The instance `bits` of the hasher, or 0 if it is not initialised. */
unsigned pavelor_instance(const pavelor_hasher *hasher);

/* One-shot: the digest of `len` bytes. */
pavelor_status pavelor_hash(unsigned bits, const void *data, size_t len,
                            uint8_t *out, size_t out_len);

/* One-shot: the digest of the first `nbits` bits of `data`. */
pavelor_status pavelor_hash_bits(unsigned bits, const void *data, uint64_t nbits,
                                 uint8_t *out, size_t out_len);

/* A static, NUL-terminated description of a status code. */
const char *pavelor_status_message(pavelor_status status);

/* The library's version ("0.1.0"), static and NUL-terminated. */
const char *pavelor_version(void);

/* The name of the implementation this process uses ("avx512-vaes",
 * "aesni", "portable", ...), static and NUL-terminated. */
const char *pavelor_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* PAVELOR_H */
