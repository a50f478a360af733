/* generators/id_gen.c: the ID pathology classes: plain, provider-native formats, null/empty,
 * duplicates, long/huge, illegal/control/non-ASCII characters, canonical look-alikes and twins of
 * earlier IDs. Random text comes from one drawn 64-bit seed per string (expanded locally), so an ID
 * costs a handful of draws whatever its length, and a zero seed gives the simplest text. */
#include "generators/id_gen.h"

#include <string.h>

#include "core/utf8.h"

static const char B62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B64URL[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";
static const char B64STD[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";
static const char HEX[] = "0123456789abcdef";
#define ALEN(s) ((unsigned)(sizeof(s) - 1))

/* The characters DESIGN.md calls illegal (outside every strict target's charset). */
static const char ILLEGAL[] = "|:./+= ";

/* Non-ASCII pieces: accented letters, other scripts, emoji (with a ZWJ sequence), and the
 * characters normalizers trip on: combining marks, invisible spaces, U+2028, BOM, and letters whose
 * case folding leaves ASCII (Kelvin sign, dotless i) or lands in it (fullwidth). */
static const char *const NON_ASCII[] = {
    "\xC3\xA9",                                     /* é */
    "\xC3\xBC",                                     /* ü */
    "\xC3\xB1",                                     /* ñ */
    "\xC3\x9F",                                     /* ß */
    "\xCE\xA9",                                     /* Ω */
    "\xD0\x96",                                     /* Ж */
    "\xD7\x90",                                     /* א */
    "\xE4\xB8\xAD",                                 /* 中 */
    "\xE6\x96\x87",                                 /* 文 */
    "\xED\x95\x9C",                                 /* 한 */
    "\xF0\x9F\x98\x80",                             /* 😀 */
    "\xF0\x9F\x94\xA7",                             /* 🔧 */
    "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", /* 👩‍💻 */
    "e\xCC\x81",                                    /* e + combining acute */
    "\xE2\x80\x8B",                                 /* zero-width space */
    "\xC2\xA0",                                     /* no-break space */
    "\xE2\x80\xA8",                                 /* line separator */
    "\xEF\xBB\xBF",                                 /* BOM */
    "\xE2\x84\xAA",                                 /* Kelvin sign */
    "\xC4\xB1",                                     /* dotless i */
    "\xEF\xBD\x83",                                 /* fullwidth c */
};
#define N_NON_ASCII (sizeof NON_ASCII / sizeof NON_ASCII[0])

enum id_class {
  K_PLAIN,
  K_NATIVE_TURN,
  K_NATIVE_ANY,
  K_NULL,
  K_EMPTY,
  K_DUP,
  K_TURN_INDEX,
  K_LONG,
  K_HUGE,
  K_ILLEGAL,
  K_CONTROL,
  K_NON_ASCII,
  K_LOOKALIKE,
  K_TWIN_SANITIZE,
  K_TWIN_PREFIX,
  K_TWIN_CASE,
  K_TWIN_TRUNCATE,
  K_COUNT
};
/* Each pathology class is about 2% of calls, so each shows up in several percent of histories;
 * huge IDs are kept near 0.1% of calls because they are slow everywhere downstream. */
static const unsigned class_weights[K_COUNT] = {600, 1600, 600, 80, 80, 80, 60, 80, 5, 80, 80, 80, 100, 80, 80, 80, 80};

enum native_format {
  NF_OPENAI,
  NF_OPENAI_SHORT,
  NF_ANTHROPIC,
  NF_ANTHROPIC_VERTEX,
  NF_ANTHROPIC_BEDROCK,
  NF_RESPONSES,
  NF_KIMI,
  NF_KIMI_SHORT,
  NF_MISTRAL,
  NF_ADK,
  NF_BEDROCK,
  NF_GEMINI,
  NF_AISDK,
  NF_COUNT,
  NF_NULL = -1 /* Gemini histories often carry no ID at all */
};

/* ---- string building in the arena ---- */

typedef struct {
  char *p;
  size_t len, cap;
} sb;

static sb sb_new(cs_arena *a, size_t cap) {
  sb b = {cs_arena_alloc(a, cap + 1), 0, cap};
  return b;
}

static void sb_put(sb *b, const char *s, size_t n) {
  if (n > b->cap - b->len)
    n = b->cap - b->len;
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

static void sb_puts(sb *b, const char *s) {
  sb_put(b, s, strlen(s));
}

/* All or nothing, so a multi-byte character is never cut. */
static void sb_put_whole(sb *b, const char *s) {
  size_t n = strlen(s);
  if (n <= b->cap - b->len)
    sb_put(b, s, n);
}

static void sb_u32(sb *b, uint32_t v) {
  char tmp[10];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n && b->len < b->cap)
    b->p[b->len++] = tmp[--n];
}

static inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* `n` characters of `alpha` expanded from `seed`; seed 0 repeats alpha[0] (the simplest text). */
static void fill(char *dst, size_t n, const char *alpha, unsigned alen, uint64_t seed) {
  if (!seed) {
    memset(dst, alpha[0], n);
    return;
  }
  uint64_t s = seed;
  size_t i = 0;
  if (n >= 2048) { /* huge IDs: a byte-to-character table, eight characters stored at once */
    uint8_t map[256];
    for (unsigned b = 0; b < 256; b++)
      map[b] = (uint8_t)alpha[(b * alen) >> 8];
    for (; i + 8 <= n; i += 8) {
      s += 0x9E3779B97F4A7C15ULL;
      uint64_t x = mix64(s);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CS_FILL_BYTE(k) ((uint64_t)map[(x >> (8 * (k))) & 0xFF] << (8 * (k)))
      uint64_t w = CS_FILL_BYTE(0) | CS_FILL_BYTE(1) | CS_FILL_BYTE(2) | CS_FILL_BYTE(3) | CS_FILL_BYTE(4) |
                   CS_FILL_BYTE(5) | CS_FILL_BYTE(6) | CS_FILL_BYTE(7);
#undef CS_FILL_BYTE
      memcpy(dst + i, &w, 8);
#else
      for (int k = 0; k < 8; k++)
        dst[i + k] = (char)map[(x >> (8 * k)) & 0xFF];
#endif
    }
  }
  for (; i + 8 <= n; i += 8) { /* whole blocks: one mix per 8 characters, unrolled */
    s += 0x9E3779B97F4A7C15ULL;
    uint64_t x = mix64(s);
    for (int k = 0; k < 8; k++)
      dst[i + k] = alpha[(((x >> (8 * k)) & 0xFF) * alen) >> 8];
  }
  if (i < n) {
    s += 0x9E3779B97F4A7C15ULL;
    uint64_t x = mix64(s);
    for (; i < n; i++, x >>= 8)
      dst[i] = alpha[((x & 0xFF) * alen) >> 8];
  }
}

static void sb_fill(sb *b, size_t n, const char *alpha, unsigned alen, uint64_t seed) {
  if (n > b->cap - b->len)
    n = b->cap - b->len;
  fill(b->p + b->len, n, alpha, alen, seed);
  b->len += n;
}

static cs_str sb_done(cs_id_ctx *x, sb *b) {
  size_t was = b->len;
  b->len = cs_utf8_clamp(b->p, b->len, x->max_id_len);
  x->cut = x->cut || b->len < was;
  b->p[b->len] = 0;
  return (cs_str){b->p, b->len};
}

static uint64_t draw_seed(cs_choices *c) {
  return cs_draw(c, UINT64_MAX);
}

static cs_str finish(cs_id_ctx *x, cs_str s) {
  if (s.ptr && s.len > x->max_id_len) {
    /* Pool entries from outside may exceed the configured bound: copy a clamped prefix. */
    sb b = sb_new(x->a, x->max_id_len);
    sb_put(&b, s.ptr, s.len);
    s = sb_done(x, &b);
    x->cut = true;
  }
  cs_id_content_labels(s, x->labels);
  return s;
}

/* ---- labels from content ---- */

/* Per-byte classes for the content scan: one table lookup per byte, no branches. */
enum { B_ILLEGAL = 1, B_CONTROL = 2, B_NON_ASCII = 4, B_CONT = 8 };
/* 1 illegal, 2 control (U+0001..U+001F), 4 non-ASCII, 12 non-ASCII continuation byte. */
static const unsigned char BYTE_CLASS[256] = {
    0,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  /* 0x00 */
    2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  /* 0x10 */
    1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  0,  0,  1,  1,  /* 0x20 */
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  0,  0,  1,  0,  0,  /* 0x30 */
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x40 */
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x50 */
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x60 */
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  0,  0,  0,  /* 0x70 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, /* 0x80 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, /* 0x90 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, /* 0xA0 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, /* 0xB0 */
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  /* 0xC0 */
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  /* 0xD0 */
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  /* 0xE0 */
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  /* 0xF0 */
};

void cs_id_content_labels(cs_str id, cs_labelset *labels) {
  if (!id.ptr) {
    *labels |= CS_LABEL_BIT(CS_LABEL_ID_MISSING);
    return;
  }
  if (!id.len) {
    *labels |= CS_LABEL_BIT(CS_LABEL_ID_EMPTY);
    return;
  }
  const unsigned char *s = (const unsigned char *)id.ptr;
  unsigned any = 0;
  size_t i = 0;
  for (; i + 8 <= id.len; i += 8) /* long IDs are most of the bytes: eight lookups a step */
    any |= BYTE_CLASS[s[i]] | BYTE_CLASS[s[i + 1]] | BYTE_CLASS[s[i + 2]] | BYTE_CLASS[s[i + 3]] |
           BYTE_CLASS[s[i + 4]] | BYTE_CLASS[s[i + 5]] | BYTE_CLASS[s[i + 6]] | BYTE_CLASS[s[i + 7]];
  for (; i < id.len; i++)
    any |= BYTE_CLASS[s[i]];
  size_t chars = id.len;
  if (any & B_CONT) /* only then a second pass: continuation bytes do not start a character */
    for (i = 0; i < id.len; i++)
      chars -= BYTE_CLASS[s[i]] >> 3;
  cs_labelset l = 0;
  if (chars > 1000)
    l |= CS_LABEL_BIT(CS_LABEL_ID_HUGE);
  else if (chars >= 65)
    l |= CS_LABEL_BIT(CS_LABEL_ID_LONG);
  if (any & B_ILLEGAL)
    l |= CS_LABEL_BIT(CS_LABEL_ID_ILLEGAL);
  if (any & B_CONTROL)
    l |= CS_LABEL_BIT(CS_LABEL_ID_CONTROL);
  if (any & B_NON_ASCII)
    l |= CS_LABEL_BIT(CS_LABEL_ID_NON_ASCII);
  *labels |= l;
}

/* ---- native formats ---- */

static void put_uuid4(sb *b, uint64_t seed) {
  char h[32];
  fill(h, 32, HEX, ALEN(HEX), seed);
  h[12] = '4';                                  /* version 4 */
  h[16] = "89ab"[(seed ? mix64(seed) : 0) & 3]; /* RFC 4122 variant */
  sb_put(b, h, 8);
  sb_puts(b, "-");
  sb_put(b, h + 8, 4);
  sb_puts(b, "-");
  sb_put(b, h + 12, 4);
  sb_puts(b, "-");
  sb_put(b, h + 16, 4);
  sb_puts(b, "-");
  sb_put(b, h + 20, 12);
}

static cs_str kimi_name(const cs_id_ctx *x) {
  return x->name.ptr ? x->name : cs_str_c("read_file");
}

/* Kimi's N: usually the correct global index, sometimes a per-turn index or plainly wrong. */
static uint32_t kimi_index(cs_id_ctx *x) {
  static const unsigned w[3] = {6, 1, 1};
  switch (cs_draw_weighted(x->c, w, 3)) {
  case 1:
    return x->turn_pos;
  case 2:
    return x->global_index + 1 + (uint32_t)cs_draw(x->c, 9);
  default:
    return x->global_index;
  }
}

static cs_str format_id(cs_id_ctx *x, int fmt) {
  cs_choices *c = x->c;
  sb b;
  switch (fmt) {
  case NF_OPENAI:
  case NF_OPENAI_SHORT: {
    size_t n = fmt == NF_OPENAI ? 24 : 6 + (size_t)cs_draw(c, 9);
    b = sb_new(x->a, 5 + n);
    sb_puts(&b, "call_");
    sb_fill(&b, n, B62, ALEN(B62), draw_seed(c));
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_OPENAI);
    break;
  }
  case NF_ANTHROPIC:
  case NF_ANTHROPIC_VERTEX:
  case NF_ANTHROPIC_BEDROCK: {
    const char *prefix = fmt == NF_ANTHROPIC          ? "toolu_01"
                         : fmt == NF_ANTHROPIC_VERTEX ? "toolu_vrtx_01"
                                                      : "toolu_bdrk_01";
    b = sb_new(x->a, strlen(prefix) + 22);
    sb_puts(&b, prefix);
    sb_fill(&b, 22, B62, ALEN(B62), draw_seed(c));
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_ANTHROPIC);
    break;
  }
  case NF_RESPONSES: {
    /* Stored composites of a Responses call: "call_id|item_id" (the common order) or reversed. */
    bool fc_first = cs_draw_bool(c, 1, 3);
    uint64_t seed = draw_seed(c), seed2 = seed ? mix64(seed) : 0;
    b = sb_new(x->a, 5 + 24 + 1 + 3 + 48);
    if (fc_first) {
      sb_puts(&b, "fc_");
      sb_fill(&b, 48, HEX, ALEN(HEX), seed2);
      sb_puts(&b, "|call_");
      sb_fill(&b, 24, B62, ALEN(B62), seed);
    } else {
      sb_puts(&b, "call_");
      sb_fill(&b, 24, B62, ALEN(B62), seed);
      sb_puts(&b, "|fc_");
      sb_fill(&b, 48, HEX, ALEN(HEX), seed2);
    }
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_RESPONSES);
    break;
  }
  case NF_KIMI:
  case NF_KIMI_SHORT: {
    cs_str name = kimi_name(x);
    uint32_t n = kimi_index(x);
    b = sb_new(x->a, 10 + name.len + 1 + 10);
    if (fmt == NF_KIMI)
      sb_puts(&b, "functions.");
    sb_put(&b, name.ptr, name.len);
    sb_puts(&b, ":");
    sb_u32(&b, n);
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_KIMI);
    break;
  }
  case NF_MISTRAL:
    b = sb_new(x->a, 9);
    sb_fill(&b, 9, B62, ALEN(B62), draw_seed(c));
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_MISTRAL);
    break;
  case NF_ADK:
    b = sb_new(x->a, 40);
    sb_puts(&b, "adk-");
    put_uuid4(&b, draw_seed(c));
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_ADK);
    break;
  case NF_BEDROCK:
    b = sb_new(x->a, 8 + 22);
    sb_puts(&b, "tooluse_");
    sb_fill(&b, 22, B62, ALEN(B62), draw_seed(c));
    *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_BEDROCK);
    break;
  case NF_GEMINI: { /* Vertex numbers its calls ("call_4162774") and sometimes repeats them */
    /* The number itself is the draw (up to n digits), not a hash of one: the shrinker can lower it
     * step by step onto the number of a plain ID it collides with. */
    static const uint32_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    size_t n = 1 + (size_t)cs_draw(c, 7);
    b = sb_new(x->a, 5 + n);
    sb_puts(&b, "call_");
    sb_u32(&b, (uint32_t)cs_draw(c, pow10[n]));
    break;
  }
  default: /* NF_AISDK: the AI SDK's own 16-character IDs */
    b = sb_new(x->a, 16);
    sb_fill(&b, 16, B62, ALEN(B62), draw_seed(c));
    break;
  }
  return sb_done(x, &b);
}

/* The format a provider's own turns carry; index 0 of every draw is its most ordinary form. Every
 * provider makes exactly one draw (ignored where there is one format), so the draws after it stay
 * aligned when the shrinker or a replay changes the provider. */
static int provider_format(cs_id_ctx *x, cs_provider p) {
  cs_choices *c = x->c;
  static const unsigned w31[2] = {3, 1}, w12[2] = {1, 2}, w11[2] = {1, 1}, w21[2] = {2, 1};
  switch (p) {
  case CS_PROV_ANTHROPIC:
    return cs_draw_weighted(c, w31, 2) ? NF_ANTHROPIC_VERTEX : NF_ANTHROPIC;
  case CS_PROV_OPENAI_CHAT:
    return cs_draw_weighted(c, w31, 2) ? NF_OPENAI_SHORT : NF_OPENAI;
  case CS_PROV_OPENAI_RESPONSES:
    return cs_draw_weighted(c, w12, 2) ? NF_RESPONSES : NF_OPENAI;
  case CS_PROV_MISTRAL:
    (void)cs_draw_weighted(c, w11, 2);
    return NF_MISTRAL;
  case CS_PROV_KIMI:
    return cs_draw_weighted(c, w31, 2) ? NF_KIMI_SHORT : NF_KIMI;
  case CS_PROV_GEMINI:
    return cs_draw_weighted(c, w21, 2) && !x->never_null ? NF_NULL : NF_GEMINI;
  case CS_PROV_BEDROCK:
    return cs_draw_weighted(c, w31, 2) ? NF_ANTHROPIC_BEDROCK : NF_BEDROCK;
  case CS_PROV_ADK:
    (void)cs_draw_weighted(c, w11, 2);
    return NF_ADK;
  case CS_PROV_AISDK:
    return cs_draw_weighted(c, w11, 2) ? NF_AISDK : NF_OPENAI;
  default:
    return (int)cs_draw(c, NF_COUNT);
  }
}

static cs_str native_id(cs_id_ctx *x, cs_provider provider) {
  int fmt = provider_format(x, provider);
  return finish(x, fmt == NF_NULL ? CS_NULL_STR : format_id(x, fmt));
}

static cs_str server_id(cs_id_ctx *x, bool whole) {
  sb b = sb_new(x->a, CS_SERVER_ID_LEN);
  sb_puts(&b, "srvtoolu_01");
  sb_fill(&b, CS_SERVER_ID_LEN - 11, B62, ALEN(B62), draw_seed(x->c));
  *x->labels |= CS_LABEL_BIT(CS_LABEL_NATIVE_SERVER);
  if (!whole)
    return finish(x, sb_done(x, &b));
  b.p[b.len] = 0;
  cs_str s = {b.p, b.len};
  cs_id_content_labels(s, x->labels);
  return s;
}

/* ---- simple classes ---- */

static cs_str plain_id(cs_id_ctx *x, uint32_t n) {
  sb b = sb_new(x->a, 5 + 10);
  sb_puts(&b, "call_");
  sb_u32(&b, n);
  return sb_done(x, &b);
}

/* The prefixes of hostile IDs that look native: a normalizer that trusts a prefix ("srvtoolu_ is a
 * server ID, pass it") lets the rest through unchecked. New ones go last: a recorded value keeps
 * its prefix. */
static const unsigned HOSTILE_PREFIX_WEIGHTS[4] = {2, 1, 1, 1};
static const char *const HOSTILE_PREFIXES[4] = {"call_", "toolu_", "", "srvtoolu_"};

static const char *hostile_prefix(cs_id_ctx *x) {
  return HOSTILE_PREFIXES[cs_draw_weighted(x->c, HOSTILE_PREFIX_WEIGHTS, 4)];
}

/* A native-looking base (a hostile prefix, then 4 to 24 letters and digits). */
static sb base_id(cs_id_ctx *x, size_t extra) {
  const char *prefix = hostile_prefix(x);
  size_t n = 4 + (size_t)cs_draw(x->c, 21);
  sb b = sb_new(x->a, strlen(prefix) + n + extra);
  sb_puts(&b, prefix);
  sb_fill(&b, n, B62, ALEN(B62), draw_seed(x->c));
  return b;
}

static cs_str illegal_id(cs_id_ctx *x) {
  sb b = base_id(x, 0);
  uint32_t k = 1 + (uint32_t)cs_draw(x->c, 3);
  for (uint32_t i = 0; i < k; i++) {
    size_t pos = (size_t)cs_draw(x->c, b.len);
    b.p[pos] = ILLEGAL[cs_draw(x->c, ALEN(ILLEGAL))];
  }
  return sb_done(x, &b);
}

static cs_str control_id(cs_id_ctx *x) {
  sb b = base_id(x, 0);
  uint32_t k = 1 + (uint32_t)cs_draw(x->c, 2);
  for (uint32_t i = 0; i < k; i++) {
    size_t pos = (size_t)cs_draw(x->c, b.len);
    b.p[pos] = (char)(1 + cs_draw(x->c, 31)); /* U+0001..U+001F, never NUL */
  }
  return sb_done(x, &b);
}

static cs_str non_ascii_id(cs_id_ctx *x) {
  const char *prefix = hostile_prefix(x);
  uint32_t pieces = 1 + (uint32_t)cs_draw(x->c, 3);
  sb b = sb_new(x->a, strlen(prefix) + pieces * (16 + 5));
  sb_puts(&b, prefix);
  for (uint32_t i = 0; i < pieces; i++) {
    sb_put_whole(&b, NON_ASCII[cs_draw(x->c, N_NON_ASCII)]);
    size_t run = (size_t)cs_draw(x->c, 6);
    if (run)
      sb_fill(&b, run, B62, ALEN(B62), draw_seed(x->c));
  }
  return sb_done(x, &b);
}

/* Characters of 1 to 4 bytes (1 or 2 UTF-16 units) for long IDs beyond ASCII: around a length
 * limit a cut by bytes, characters or UTF-16 units lands in different places, and one by UTF-16
 * units can split an emoji. */
static const char *const LONG_PIECES[] = {"\xF0\x9F\x98\x80", "\xE4\xB8\xAD", "\xC3\xA9", "\xF0\x9F\x94\xA7", "a", "7"};

static void sb_fill_pieces(sb *b, size_t len, uint64_t seed) {
  uint64_t s = seed;
  while (len > b->len && len - b->len >= 4) {
    s += 0x9E3779B97F4A7C15ULL;
    sb_puts(b, LONG_PIECES[seed ? mix64(s) % (sizeof LONG_PIECES / sizeof LONG_PIECES[0]) : 0]);
  }
  sb_fill(b, len > b->len ? len - b->len : 0, B62, ALEN(B62), seed);
}

static cs_str long_id(cs_id_ctx *x, size_t len) {
  static const unsigned w[3] = {3, 1, 1};
  sb b = sb_new(x->a, len);
  size_t mode = cs_draw_weighted(x->c, w, 3);
  if (mode == 2) { /* past ASCII: "call_" and characters of 1 to 4 bytes */
    sb_puts(&b, "call_");
    sb_fill_pieces(&b, len, draw_seed(x->c));
  } else if (mode == 1) {
    /* LiteLLM embeds Gemini thought signatures: call_<uuid hex>__thought__<base64>. */
    uint64_t seed = draw_seed(x->c);
    sb_puts(&b, "call_");
    sb_fill(&b, 32, HEX, ALEN(HEX), seed);
    sb_puts(&b, "__thought__");
    size_t rest = b.len < len ? len - b.len : 0;
    size_t pad = rest > 2 ? (size_t)cs_draw(x->c, 3) : 0;
    sb_fill(&b, rest - pad, B64STD, ALEN(B64STD), seed ? mix64(seed) : 0);
    while (pad--)
      sb_puts(&b, "=");
  } else {
    sb_puts(&b, "call_");
    sb_fill(&b, len > 5 ? len - 5 : 0, B62, ALEN(B62), draw_seed(x->c));
  }
  return sb_done(x, &b);
}

static size_t long_len(cs_id_ctx *x) {
  size_t hi = x->max_id_len < 1000 ? x->max_id_len : 1000;
  return hi < 65 ? hi : 65 + (size_t)cs_draw(x->c, hi - 64);
}

/* Only when max_id_len > 1000. */
static cs_str huge_id(cs_id_ctx *x) {
  size_t max = x->max_id_len;
  size_t len = cs_draw_bool(x->c, 1, 8) ? max : 1001 + (size_t)cs_draw(x->c, max - 1000);
  sb b = sb_new(x->a, len);
  sb_puts(&b, "call_");
  sb_fill(&b, len - 5, B62, ALEN(B62), draw_seed(x->c));
  return sb_done(x, &b);
}

static bool is_lookalike(cs_str s) {
  return s.len == 34 && cs_str_starts(s, "hist_tool_");
}

/* Index of the first pool entry that `ok` accepts, or -1, searching back (cyclically) from the
 * entry `start` places before the newest. Counting back from the newest keeps a reference when the
 * shrinker deletes earlier calls, and start 0 (the simplest) is the nearest earlier ID. */
static int64_t pool_find(const cs_id_ctx *x, uint32_t first, uint32_t start, bool (*ok)(cs_str, const void *),
                         const void *arg) {
  uint32_t n = x->npool - first;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = x->npool - 1 - (start + k) % n;
    if (!cs_str_is_blank(x->pool[i]) && (!ok || ok(x->pool[i], arg)))
      return i;
  }
  return -1;
}

static uint32_t draw_start(cs_id_ctx *x, uint32_t first) {
  return x->npool > first ? (uint32_t)cs_draw(x->c, x->npool - first) : 0;
}

static bool ok_lookalike(cs_str s, const void *arg) {
  return is_lookalike(s);
}

static cs_str lookalike_id(cs_id_ctx *x) {
  static const unsigned w[3] = {6, 2, 1};
  size_t mode = cs_draw_weighted(x->c, w, 3);
  *x->labels |= CS_LABEL_BIT(CS_LABEL_LOOKALIKE);
  if (mode == 1) { /* the same look-alike as an earlier call */
    int64_t i = pool_find(x, 0, draw_start(x, 0), ok_lookalike, NULL);
    if (i >= 0)
      return x->pool[i];
    mode = 0;
  }
  size_t n = 24, dot = 0;
  if (mode == 2) { /* near misses: one character short or long, or a '.' inside */
    size_t miss = (size_t)cs_draw(x->c, 3);
    n = miss == 0 ? 23 : miss == 1 ? 25 : 24;
    if (miss == 2)
      dot = 1 + (size_t)cs_draw(x->c, 24);
  }
  sb b = sb_new(x->a, 10 + n);
  sb_puts(&b, "hist_tool_");
  sb_fill(&b, n, B64URL, ALEN(B64URL), draw_seed(x->c));
  if (dot)
    b.p[10 + dot - 1] = '.';
  return sb_done(x, &b);
}

static cs_str dup_id(cs_id_ctx *x) {
  /* Prefer the current turn (duplicate within a turn), then any earlier turn. */
  int64_t i = pool_find(x, x->turn_first, draw_start(x, x->turn_first), NULL, NULL);
  if (i >= 0) {
    *x->labels |= CS_LABEL_BIT(CS_LABEL_ID_DUP_TURN);
    return x->pool[i];
  }
  i = pool_find(x, 0, draw_start(x, 0), NULL, NULL);
  if (i >= 0) {
    *x->labels |= CS_LABEL_BIT(CS_LABEL_ID_DUP_ACROSS);
    return x->pool[i];
  }
  return plain_id(x, x->global_index);
}

/* ---- twins of an earlier ID ---- */

static char *copy_of(cs_id_ctx *x, cs_str s) {
  char *p = cs_arena_alloc(x->a, s.len + 1);
  memcpy(p, s.ptr, s.len);
  p[s.len] = 0;
  return p;
}

/* A byte a sanitizer maps to '_': '_' itself or any ASCII byte outside [A-Za-z0-9-]. */
static bool sanitizable(unsigned char ch) {
  return ch < 0x80 && !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-');
}

static size_t count_if(cs_str s, bool (*pred)(unsigned char)) {
  size_t n = 0;
  for (size_t i = 0; i < s.len; i++)
    n += pred((unsigned char)s.ptr[i]);
  return n;
}

static size_t nth_if(cs_str s, bool (*pred)(unsigned char), size_t k) {
  for (size_t i = 0; i < s.len; i++)
    if (pred((unsigned char)s.ptr[i]) && k-- == 0)
      return i;
  return 0;
}

static bool ok_sanitize(cs_str s, const void *arg) {
  return count_if(s, sanitizable) > 0;
}

static bool twin_sanitize(cs_id_ctx *x, cs_str *out) {
  int64_t i = pool_find(x, 0, draw_start(x, 0), ok_sanitize, NULL);
  if (i < 0)
    return false;
  cs_str e = x->pool[i];
  size_t pos = nth_if(e, sanitizable, (size_t)cs_draw(x->c, count_if(e, sanitizable)));
  char from = e.ptr[pos];
  /* Another byte of the same sanitizing class: '_' or an illegal character. */
  char choices[sizeof ILLEGAL + 1];
  size_t n = 0;
  if (from != '_')
    choices[n++] = '_';
  for (const char *p = ILLEGAL; *p; p++)
    if (*p != from)
      choices[n++] = *p;
  char *p = copy_of(x, e);
  p[pos] = choices[cs_draw(x->c, n)];
  *out = (cs_str){p, e.len};
  *x->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_SANITIZE);
  return true;
}

static const char *const STRIPPED_PREFIXES[] = {"toolu_vrtx_", "toolu_bdrk_", "srvtoolu_", "tooluse_",
                                                "toolu_",      "call_",       "fc_",       "functions."};
/* s without the first of prefixes[0..n) it starts with, when something is left; else s itself. */
static cs_str without_prefix(cs_str s, const char *const *prefixes, size_t n) {
  for (size_t k = 0; s.ptr && k < n; k++)
    if (cs_str_starts(s, prefixes[k]) && s.len > strlen(prefixes[k]))
      return (cs_str){s.ptr + strlen(prefixes[k]), s.len - strlen(prefixes[k])};
  return s;
}

static cs_str without_native_prefix(cs_str s) {
  return without_prefix(s, STRIPPED_PREFIXES, sizeof STRIPPED_PREFIXES / sizeof STRIPPED_PREFIXES[0]);
}

static const char *const TWIN_PREFIXES[] = {"", "call_", "toolu_", "tooluse_", "fc_"};
#define N_TWIN_PREFIXES (sizeof TWIN_PREFIXES / sizeof TWIN_PREFIXES[0])

static bool twin_prefix(cs_id_ctx *x, cs_str *out) {
  int64_t i = pool_find(x, 0, draw_start(x, 0), NULL, NULL);
  if (i < 0)
    return false;
  cs_str e = x->pool[i], rest = without_native_prefix(e);
  size_t had = e.len - rest.len; /* the prefix it had: e's first `had` bytes */
  /* Any prefix but the one it had: call_X vs toolu_X vs X. */
  const char *choices[N_TWIN_PREFIXES];
  size_t n = 0;
  for (size_t k = 0; k < N_TWIN_PREFIXES; k++)
    if (strlen(TWIN_PREFIXES[k]) != had || (had && memcmp(TWIN_PREFIXES[k], e.ptr, had) != 0))
      choices[n++] = TWIN_PREFIXES[k];
  const char *prefix = choices[cs_draw(x->c, n)];
  sb b = sb_new(x->a, strlen(prefix) + rest.len);
  sb_puts(&b, prefix);
  sb_put(&b, rest.ptr, rest.len);
  *out = sb_done(x, &b);
  *x->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_PREFIX);
  return true;
}

static bool ascii_letter(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
static bool ok_case(cs_str s, const void *arg) {
  return count_if(s, ascii_letter) > 0;
}

static bool twin_case(cs_id_ctx *x, cs_str *out) {
  int64_t i = pool_find(x, 0, draw_start(x, 0), ok_case, NULL);
  if (i < 0)
    return false;
  cs_str e = x->pool[i];
  char *p = copy_of(x, e);
  if (cs_draw_bool(x->c, 1, 2)) { /* flip every letter */
    for (size_t k = 0; k < e.len; k++)
      if (ascii_letter((unsigned char)p[k]))
        p[k] ^= 0x20;
  } else {
    size_t pos = nth_if(e, ascii_letter, (size_t)cs_draw(x->c, count_if(e, ascii_letter)));
    p[pos] ^= 0x20;
  }
  *out = (cs_str){p, e.len};
  *x->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_CASE);
  return true;
}

static const size_t CUTS[4] = {9, 40, 53, 64};

static bool ok_cut(cs_str s, const void *arg) {
  size_t cut = *(const size_t *)arg;
  return s.len > cut && ((unsigned char)s.ptr[cut] & 0xC0) != 0x80;
}

static bool twin_truncate(cs_id_ctx *x, cs_str *out) {
  uint32_t start = draw_start(x, 0);
  int ci = (int)cs_draw(x->c, 4);
  int64_t i = -1;
  for (; ci >= 0 && i < 0; ci--)
    i = pool_find(x, 0, start, ok_cut, &CUTS[ci]);
  if (i < 0)
    return false;
  size_t cut = CUTS[ci + 1];
  cs_str e = x->pool[i];
  /* Same first `cut` bytes, a different tail (or none). */
  size_t tail = (size_t)cs_draw(x->c, 25);
  sb b = sb_new(x->a, cut + tail);
  sb_put(&b, e.ptr, cut);
  sb_fill(&b, tail, B62, ALEN(B62), draw_seed(x->c));
  if (tail && b.p[cut] == e.ptr[cut])
    b.p[cut] = B62[(strchr(B62, b.p[cut]) - B62 + 1) % ALEN(B62)];
  *out = sb_done(x, &b);
  *x->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_TRUNCATE);
  return true;
}

/* ---- telling twins apart from strangers ---- */

/* A byte as the twin classes see it: letters folded, every byte a sanitizer may rewrite as '_'. */
static unsigned char twin_byte(unsigned char ch) {
  if (ch >= 0x80 || sanitizable(ch))
    return '_';
  return ascii_letter(ch) ? (unsigned char)(ch | 0x20) : ch;
}

/* Equal but for case and sanitized bytes, or alike in their first 9 bytes or more (a cut at 9, 40,
 * 53 or 64 makes them one). */
static bool same_but_case_sanitizing_or_cut(cs_str x, cs_str y) {
  size_t n = x.len < y.len ? x.len : y.len, i = 0;
  while (i < n && twin_byte((unsigned char)x.ptr[i]) == twin_byte((unsigned char)y.ptr[i]))
    i++;
  return i >= CUTS[0] || (i == n && x.len == y.len);
}

bool cs_id_twins(cs_str x, cs_str y) {
  if (!x.ptr || !y.ptr)
    return false;
  return same_but_case_sanitizing_or_cut(x, y) ||
         same_but_case_sanitizing_or_cut(without_native_prefix(x), without_native_prefix(y));
}

cs_str cs_id_output_prefix_stripped(cs_str s) {
  /* The native prefixes, and the one callsign's reference normalizer writes for gemini. */
  static const char *const prefixes[] = {"hist_tool_", "toolu_vrtx_", "toolu_bdrk_", "srvtoolu_", "tooluse_",
                                         "toolu_",     "call_",       "fc_",         "functions."};
  return without_prefix(s, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

/* ---- the class draw ---- */

static cs_str draw_id(cs_id_ctx *x) {
  cs_str s = CS_NULL_STR;
  size_t k = cs_draw_weighted(x->c, class_weights, K_COUNT);
  bool ok = true;
  switch (k) {
  case K_PLAIN:
    return finish(x, plain_id(x, x->per_turn_numbering ? x->turn_pos : x->global_index));
  case K_NATIVE_TURN:
    return native_id(x, x->provider);
  case K_NATIVE_ANY:
    return native_id(x, CS_PROV_UNKNOWN);
  case K_NULL:
    return finish(x, x->never_null ? cs_str_n("", 0) : CS_NULL_STR);
  case K_EMPTY:
    return finish(x, cs_str_n("", 0));
  case K_DUP:
    return finish(x, dup_id(x));
  case K_TURN_INDEX: /* "call_0" in every turn */
    return finish(x, plain_id(x, x->turn_pos));
  case K_LONG:
    return finish(x, long_id(x, long_len(x)));
  case K_HUGE:
    if (x->max_id_len <= 1000)
      return finish(x, long_id(x, long_len(x)));
    /* Letters and digits only, so its labels are known without scanning 64 KiB. */
    *x->labels |= CS_LABEL_BIT(CS_LABEL_ID_HUGE);
    return huge_id(x);
  case K_ILLEGAL:
    return finish(x, illegal_id(x));
  case K_CONTROL:
    return finish(x, control_id(x));
  case K_NON_ASCII:
    return finish(x, non_ascii_id(x));
  case K_LOOKALIKE:
    return finish(x, lookalike_id(x));
  case K_TWIN_SANITIZE:
    ok = twin_sanitize(x, &s);
    break;
  case K_TWIN_PREFIX:
    ok = twin_prefix(x, &s);
    break;
  case K_TWIN_CASE:
    ok = twin_case(x, &s);
    break;
  default:
    ok = twin_truncate(x, &s);
    break;
  }
  /* No earlier ID to twin: a fresh native ID (which later calls can twin). */
  return ok ? finish(x, s) : native_id(x, CS_PROV_UNKNOWN);
}

/* A class label claims what the ID is: when the bound cut the ID short, the labels its making
 * added are taken back and only its content's are given (cs_id_ctx.cut). */
static cs_str labelled(cs_id_ctx *x, cs_labelset before, cs_str s) {
  if (x->cut) {
    *x->labels = before;
    cs_id_content_labels(s, x->labels);
  }
  return s;
}

cs_str cs_id_draw(cs_id_ctx *x) {
  cs_labelset before = *x->labels;
  x->cut = false;
  return labelled(x, before, draw_id(x));
}

cs_str cs_id_native(cs_id_ctx *x, cs_provider provider) {
  cs_labelset before = *x->labels;
  x->cut = false;
  return labelled(x, before, native_id(x, provider));
}

cs_str cs_id_server(cs_id_ctx *x, bool whole) {
  cs_labelset before = *x->labels;
  x->cut = false;
  return labelled(x, before, server_id(x, whole));
}
