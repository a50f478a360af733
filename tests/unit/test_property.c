/* tests/unit/test_property.c: property checks called directly on hand-built replies, for what a
 * generated run reaches only by chance: which pair normalize.injective names, and that it finds a
 * collision among many inputs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "harness/property.h"

static cs_arena A;
static void setup(void) {
  memset(&A, 0, sizeof A);
}
static void teardown(void) {
  cs_arena_free(&A);
}
TestSuite(property, .init = setup, .fini = teardown);

/* normalize.injective on target 0 for inputs in[i] -> out[i] (NULL: a null string). */
static bool injective(const char *const *in, const char *const *out, uint32_t n, char *why, size_t why_len) {
  static cs_caserun run; /* large: not on the stack */
  memset(&run, 0, sizeof run);
  cs_str *ins = CS_ARENA_NEW(&A, cs_str, n + 1), *outs = CS_ARENA_NEW(&A, cs_str, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    ins[i] = in[i] ? cs_str_c(in[i]) : CS_NULL_STR;
    outs[i] = out[i] ? cs_str_c(out[i]) : CS_NULL_STR;
  }
  run.norm_in = ins;
  run.norm[0] = (cs_reply){.status = CS_REPLY_OK, .ids = outs, .nids = n};
  run.norm_twice[0] = (cs_reply){.status = CS_REPLY_OK};
  cs_check_ctx ctx = {.scratch = &A, .why = why, .why_len = why_len};
  why[0] = 0;
  return cs_property_find("normalize.injective")->check(&ctx, &run, 0);
}

Test(property, injective_names_the_first_colliding_pair_in_input_order) {
  char why[600];
  /* "d" and "b" collide on X (indices 1 and 3), "a" and "c" on Y (0 and 2): the pair of the smallest
   * index is named, with the first later input that differs. */
  const char *in[] = {"a", "b", "c", "d", "a"}, *out[] = {"Y", "X", "Y", "X", "Y"};
  cr_assert_not(injective(in, out, 5, why, sizeof why));
  cr_assert_str_eq(why, "normalize(\"a\") = normalize(\"c\") = \"Y\"");
  /* The same input twice is no collision; a null output is none either. */
  const char *in2[] = {"a", "a", "b"}, *out2[] = {"Y", "Y", NULL};
  cr_assert(injective(in2, out2, 3, why, sizeof why), "%s", why);
  /* Equal outputs of equal inputs, then another input: it is named against the first. */
  const char *in3[] = {"a", "a", "z"}, *out3[] = {"Y", "Y", "Y"};
  cr_assert_not(injective(in3, out3, 3, why, sizeof why));
  cr_assert_str_eq(why, "normalize(\"a\") = normalize(\"z\") = \"Y\"");
}

Test(property, injective_finds_one_collision_among_many_inputs) {
  enum { N = 20000 };
  static char names[N][16], outs[N][16];
  static const char *in[N], *out[N];
  for (uint32_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "in%u", i);
    snprintf(outs[i], sizeof outs[i], "out%u", i);
    in[i] = names[i], out[i] = outs[i];
  }
  char why[600];
  cr_assert(injective(in, out, N, why, sizeof why), "%s", why);
  out[N - 1] = outs[7]; /* the last input maps where the eighth does */
  cr_assert_not(injective(in, out, N, why, sizeof why));
  cr_assert_str_eq(why, "normalize(\"in7\") = normalize(\"in19999\") = \"out7\"");
}
