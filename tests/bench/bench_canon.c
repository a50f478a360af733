/* tests/bench/bench_canon.c: the reference canonicalizer against raw OpenSSL SHA-256 on the same
 * messages. Generates histories, records the exact bytes canonical v1 hashes, then times (a) the
 * canonicalizer over the histories and (b) SHA-256 alone over those bytes, through EVP and through
 * the interface core/hash.c uses; the ratio is taken against the faster of the two, so a cheaper
 * digest call makes the budget harder to meet, not easier. Prints one JSON line.
 * Both loops pass over the same working set several times per round, so neither measures cold
 * memory: the histories and the recorded messages both stay in cache. A round times the three
 * loops back to back (a few milliseconds each), and the ratio is the median of the rounds' ratios:
 * the core's speed drifts on these machines, and a round's loops share whatever it gives.
 * Usage: bench_canon [HISTORIES] [ROUNDS] [PASSES] */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generators/history_gen.h"
#include "providers/canonical.h"

typedef struct {
  cs_buf *msgs; /* every message the canonicalizer hashed, in order */
  cs_hasher *h;
} recorder;

static void record(void *user, const void *data, size_t len, uint8_t out[32]) {
  recorder *r = user;
  cs_buf_put(r->msgs, data, len);
  cs_buf_putc(r->msgs, 0); /* separator; lengths kept below */
  cs_sha256(r->h, data, len, out);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v. */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  int passes = argc > 3 ? atoi(argv[3]) : 20;
  if (passes < 1)
    passes = 1;
  if (rounds < 1 || rounds > 199)
    rounds = 5;
  cs_arena store = {0}, a = {0};
  cs_choices ch = {0};
  cs_gen_config gc = {.max_id_len = 1000}; /* huge IDs would measure memcpy, not the scheme */
  cs_history *hs = malloc(n * sizeof *hs);
  cs_history_index *ixs = malloc(n * sizeof *ixs);
  for (size_t i = 0; i < n; i++) {
    cs_choices_record(&ch, i + 1);
    cs_gen_case g;
    cs_gen_history(&ch, &gc, &store, &g);
    hs[i] = g.h;
    cs_history_index_build(&hs[i], &store, &ixs[i]);
  }
  cs_hasher *hasher = cs_hasher_new();
  cs_buf msgs = {0};
  recorder rec = {&msgs, hasher};
  cs_digest drec = {hasher, record, &rec}, d = {hasher, NULL, NULL};
  for (size_t i = 0; i < n; i++) {
    cs_canonicalize(&hs[i], &ixs[i], &drec, &a);
    cs_arena_reset(&a);
  }
  /* split the recorded messages back (NUL-separated; messages hold no NUL: IDs are NUL-free) */
  size_t nm = 0;
  for (size_t i = 0; i < msgs.len; i++)
    nm += msgs.data[i] == 0;
  const char **msgp = malloc((nm + 1) * sizeof *msgp);
  size_t *msgl = malloc((nm + 1) * sizeof *msgl);
  for (size_t m = 0, off = 0; m < nm; m++) {
    msgp[m] = msgs.data + off;
    msgl[m] = strlen(msgs.data + off);
    off += msgl[m] + 1;
  }
  double canon_t[199], sha_t[199], evp_t[199], ratio[199];
  EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  unsigned char out[32];
  unsigned olen;
  volatile unsigned sink = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now();
    for (int k = 0; k < passes; k++)
      for (size_t i = 0; i < n; i++) {
        cs_answer ans = cs_canonicalize(&hs[i], &ixs[i], &d, &a);
        sink += ans.ncalls;
        cs_arena_reset(&a);
      }
    canon_t[r] = now() - t0;
    t0 = now();
    for (int k = 0; k < passes; k++) {
      for (size_t m = 0; m < nm; m++) {
        EVP_DigestInit_ex2(ctx, md, NULL);
        EVP_DigestUpdate(ctx, msgp[m], msgl[m]);
        EVP_DigestFinal_ex(ctx, out, &olen);
        sink += out[0];
      }
    }
    evp_t[r] = now() - t0;
    t0 = now();
    for (int k = 0; k < passes; k++) {
      for (size_t m = 0; m < nm; m++) {
        cs_sha256(hasher, msgp[m], msgl[m], out);
        sink += out[0];
      }
    }
    sha_t[r] = now() - t0;
    double fastest = sha_t[r] < evp_t[r] ? sha_t[r] : evp_t[r]; /* the faster raw rate */
    ratio[r] = fastest / canon_t[r];
  }
  double c = median(canon_t, rounds), l = median(sha_t, rounds), e = median(evp_t, rounds);
  double s = l < e ? l : e;
  printf("{\"histories\":%zu,\"messages\":%zu,\"canon_messages_per_s\":%.0f,\"sha256_messages_per_s\":%.0f,"
         "\"sha256_evp_messages_per_s\":%.0f,\"sha256_callsign_messages_per_s\":%.0f,\"sha256_interface\":\"%s\","
         "\"ratio\":%.3f}\n",
         n, nm, (double)nm * passes / c, (double)nm * passes / s, (double)nm * passes / e, (double)nm * passes / l,
         cs_hasher_engine(), median(ratio, rounds));
  (void)sink;
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
  cs_hasher_free(hasher);
  cs_buf_free(&msgs);
  cs_choices_free(&ch);
  cs_arena_free(&a);
  cs_arena_free(&store);
  free(hs);
  free(ixs);
  free(msgp);
  free(msgl);
  return 0;
}
