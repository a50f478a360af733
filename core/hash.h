/* core/hash.h: SHA-256 (OpenSSL) and base64url, the primitives of canonical v1.
 * A cs_hasher holds one prepared digest context so the hot loop does no per-hash allocation.
 * It is not thread-safe: one hasher per thread. */
#ifndef CS_CORE_HASH_H
#define CS_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct cs_hasher cs_hasher;

/* NULL only when OpenSSL cannot provide SHA-256 (then the process cannot do anything useful). */
cs_hasher *cs_hasher_new(void);
void cs_hasher_free(cs_hasher *h);
/* Incremental use: begin, add any number of parts, finish into 32 bytes. */
void cs_hasher_begin(cs_hasher *h);
void cs_hasher_add(cs_hasher *h, const void *data, size_t len);
void cs_hasher_finish(cs_hasher *h, uint8_t out[32]);
/* Which OpenSSL interface computes the digests (for benchmarks that compare against it). */
const char *cs_hasher_engine(void);
/* One shot. */
void cs_sha256(cs_hasher *h, const void *data, size_t len, uint8_t out[32]);

/* base64url without padding of `n` bytes into `out` (needs 4*ceil(n/3)+1 bytes); returns length. */
size_t cs_base64url(const uint8_t *in, size_t n, char *out);
/* Lower-case hex of `n` bytes into `out` (needs 2n+1 bytes). */
void cs_hex(const uint8_t *in, size_t n, char *out);

#endif
