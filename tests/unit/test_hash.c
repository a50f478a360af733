/* tests/unit/test_hash.c: core/hash.c: SHA-256 against FIPS 180-2 vectors, base64url against
 * RFC 4648 (URL alphabet, no padding), hex. */
#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

static cs_hasher *H;
static void setup(void) {
  H = cs_hasher_new();
  cr_assert_not_null(H, "SHA-256 must be available");
}
static void teardown(void) {
  cs_hasher_free(H);
}

static const char *sha_hex(const void *data, size_t n) {
  static char hex[65];
  uint8_t d[32];
  cs_sha256(H, data, n, d);
  cs_hex(d, 32, hex);
  return hex;
}

TestSuite(hash, .init = setup, .fini = teardown);

Test(hash, sha256_fips_vectors) {
  cr_assert_str_eq(sha_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  cr_assert_str_eq(sha_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  cr_assert_str_eq(sha_hex(two, strlen(two)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(hash, sha256_million_a_incremental) {
  char block[1000];
  memset(block, 'a', sizeof block);
  uint8_t d[32];
  char hex[65];
  cs_hasher_begin(H);
  for (int i = 0; i < 1000; i++)
    cs_hasher_add(H, block, sizeof block);
  cs_hasher_finish(H, d);
  cs_hex(d, 32, hex);
  cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(hash, incremental_equals_one_shot_and_hasher_is_reusable) {
  const char *msg = "callsign-canonical-v1,9:anthropic,5:toolu,";
  uint8_t one[32], parts[32], again[32];
  cs_sha256(H, msg, strlen(msg), one);
  cs_hasher_begin(H);
  for (size_t i = 0; i < strlen(msg); i++)
    cs_hasher_add(H, msg + i, 1);
  cs_hasher_finish(H, parts);
  cr_assert_arr_eq(one, parts, 32);
  /* A begin after an unfinished use starts afresh. */
  cs_hasher_begin(H);
  cs_hasher_add(H, "garbage", 7);
  cs_sha256(H, msg, strlen(msg), again);
  cr_assert_arr_eq(one, again, 32);
}

static const char *b64(const char *in, size_t n) {
  static char out[128];
  size_t len = cs_base64url((const uint8_t *)in, n, out);
  cr_assert_eq(len, strlen(out), "returned length and NUL agree");
  return out;
}

Test(hash, base64url_rfc4648_vectors_without_padding) {
  cr_assert_str_eq(b64("", 0), "");
  cr_assert_str_eq(b64("f", 1), "Zg");
  cr_assert_str_eq(b64("fo", 2), "Zm8");
  cr_assert_str_eq(b64("foo", 3), "Zm9v");
  cr_assert_str_eq(b64("foob", 4), "Zm9vYg");
  cr_assert_str_eq(b64("fooba", 5), "Zm9vYmE");
  cr_assert_str_eq(b64("foobar", 6), "Zm9vYmFy");
  /* Past the six-byte steps: every remainder (values from python3's base64.urlsafe_b64encode). */
  cr_assert_str_eq(b64("foobarb", 7), "Zm9vYmFyYg");
  cr_assert_str_eq(b64("foobarba", 8), "Zm9vYmFyYmE");
  cr_assert_str_eq(b64("foobarbaz", 9), "Zm9vYmFyYmF6");
  cr_assert_str_eq(b64("foobarbazq", 10), "Zm9vYmFyYmF6cQ");
  cr_assert_str_eq(b64("foobarbazqu", 11), "Zm9vYmFyYmF6cXU");
  cr_assert_str_eq(b64("foobarbazqux", 12), "Zm9vYmFyYmF6cXV4");
  cr_assert_str_eq(b64("foobarbazquxq", 13), "Zm9vYmFyYmF6cXV4cQ");
}

Test(hash, base64url_uses_the_url_alphabet) {
  cr_assert_str_eq(b64("\xfb\xef\xbe", 3), "----"); /* standard base64: "++++" */
  cr_assert_str_eq(b64("\xff\xff\xff", 3), "____"); /* standard base64: "////" */
  cr_assert_str_eq(b64("\xfb\xff", 2), "-_8");      /* standard: "+/8=" */
  cr_assert_str_eq(b64("\x00\x00\x00", 3), "AAAA");
  /* Every output character is in the URL-safe set, for every byte value. */
  char all[256];
  for (int i = 0; i < 256; i++)
    all[i] = (char)i;
  const char *s = b64(all, 85);
  cr_assert_eq(strlen(s), 114);
  cr_assert_eq(strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), strlen(s));
}

Test(hash, base64url_lengths) {
  uint8_t d[32];
  char out[64];
  cs_sha256(H, "abc", 3, d);
  cr_assert_eq(cs_base64url(d, 32, out), 43);
  cr_assert_eq(cs_base64url(d, 18, out), 24);
  cr_assert_str_eq(out, "ungWv48Bz-pBQUDeXa4iI7AD");
}

/* OpenSSL's standard base64, turned into the URL alphabet without padding. */
static size_t openssl_b64url(const uint8_t *in, size_t n, char *out) {
  int m = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
  for (int i = 0; i < m; i++)
    out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
  while (m > 0 && out[m - 1] == '=')
    m--;
  out[m] = 0;
  return (size_t)m;
}

/* Against OpenSSL's encoder: every 12-bit value in every group of a 6-byte and of a 3-byte step (the
 * encoder looks characters up two at a time), and every length up to 40 over varied bytes. */
Test(hash, base64url_agrees_with_openssl_on_every_12_bit_group_and_length) {
  char got[80], want[80];
  for (uint32_t v = 0; v < 4096; v++) {
    uint32_t w = v << 12 | v; /* three bytes whose two 12-bit groups are both v */
    uint8_t in[9];
    for (int k = 0; k < 9; k++)
      in[k] = (uint8_t)(w >> (16 - 8 * (k % 3)));
    for (size_t n = 3; n <= 9; n += 3) {
      cr_assert_eq(cs_base64url(in, n, got), openssl_b64url(in, n, want));
      cr_assert_str_eq(got, want, "v=%u n=%zu", v, n);
    }
  }
  uint8_t in[40];
  uint64_t s = 0x9E3779B97F4A7C15ULL;
  for (int round = 0; round < 200; round++)
    for (size_t n = 0; n <= sizeof in; n++) {
      for (size_t k = 0; k < n; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        in[k] = (uint8_t)(s >> 56);
      }
      cr_assert_eq(cs_base64url(in, n, got), openssl_b64url(in, n, want));
      cr_assert_str_eq(got, want, "n=%zu", n);
    }
}

Test(hash, hex) {
  char out[9];
  cs_hex((const uint8_t *)"\x00\x0f\xa0\xff", 4, out);
  cr_assert_str_eq(out, "000fa0ff");
  cs_hex((const uint8_t *)"", 0, out);
  cr_assert_str_eq(out, "");
}
