/* tests/unit/test_buf.c: core/buf.c: appends, NUL termination, growth and JSON string escaping. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"

static const char *json_of(cs_buf *b, cs_str s) {
  cs_buf_clear(b);
  cs_buf_json_str(b, s);
  return b->data;
}

Test(buf, appends_and_stays_terminated) {
  cs_buf b = {0};
  cr_assert_eq(cs_buf_view(&b).len, 0);
  cr_assert_str_eq(cs_buf_view(&b).ptr, "");
  cs_buf_puts(&b, "ab");
  cs_buf_putc(&b, 'c');
  cs_buf_put(&b, "defXX", 3);
  cs_buf_printf(&b, "-%d-%s", 42, "x");
  cr_assert_str_eq(b.data, "abcdef-42-x");
  cr_assert_eq(b.len, strlen("abcdef-42-x"));
  cs_buf_clear(&b);
  cr_assert_eq(b.len, 0);
  cr_assert_str_eq(b.data, "");
  cs_buf_free(&b);
  cr_assert_null(b.data);
  cr_assert_eq(b.cap, 0);
}

Test(buf, empty_appends_leave_a_string) {
  cs_buf b = {0};
  cs_buf_printf(&b, "%s", "");
  cr_assert_not_null(b.data, "an empty printf is still an append: data is a NUL-terminated string");
  cr_assert_str_eq(b.data, "");
  cs_buf_free(&b);
  cs_buf c = {0};
  cs_buf_put(&c, "", 0);
  cr_assert_not_null(c.data);
  cr_assert_str_eq(c.data, "");
  cs_buf_free(&c);
}

Test(buf, grows_past_many_doublings) {
  cs_buf b = {0};
  for (int i = 0; i < 100000; i++)
    cs_buf_putc(&b, (char)('a' + i % 26));
  cr_assert_eq(b.len, 100000);
  cr_assert_eq(b.data[b.len], '\0');
  for (int i = 0; i < 100000; i++)
    cr_assert_eq(b.data[i], (char)('a' + i % 26));
  cs_buf_printf(&b, "%9000d", 1);
  cr_assert_eq(b.len, 109000);
  cr_assert_eq(b.data[108999], '1');
  cr_assert_eq(b.data[109000], '\0');
  cs_buf_free(&b);
}

Test(buf, binary_bytes_are_kept) {
  cs_buf b = {0};
  const char raw[] = {'x', 0, 'y'};
  cs_buf_put(&b, raw, 3);
  cr_assert_eq(b.len, 3);
  cr_assert_eq(memcmp(b.data, raw, 3), 0);
  cs_buf_free(&b);
}

Test(buf, json_null_and_plain) {
  cs_buf b = {0};
  cr_assert_str_eq(json_of(&b, CS_NULL_STR), "null");
  cr_assert_str_eq(json_of(&b, cs_str_c("")), "\"\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("toolu_01A-b_c")), "\"toolu_01A-b_c\"");
  cs_buf_free(&b);
}

Test(buf, json_quote_and_backslash) {
  cs_buf b = {0};
  cr_assert_str_eq(json_of(&b, cs_str_c("a\"b")), "\"a\\\"b\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("a\\b")), "\"a\\\\b\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\\u0000")), "\"\\\\u0000\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\"\\\"")), "\"\\\"\\\\\\\"\"");
  cs_buf_free(&b);
}

Test(buf, json_control_characters) {
  cs_buf b = {0};
  cr_assert_str_eq(json_of(&b, cs_str_c("\x01")), "\"\\u0001\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("a\nb\tc\r")), "\"a\\u000ab\\u0009c\\u000d\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\x1f")), "\"\\u001f\"");
  /* An embedded NUL byte is escaped, never written raw. */
  cr_assert_str_eq(json_of(&b, cs_str_n("a\0b", 3)), "\"a\\u0000b\"");
  /* DEL and space need no escape. */
  cr_assert_str_eq(json_of(&b, cs_str_c(" \x7f")), "\" \x7f\"");
  /* No raw byte below 0x20 ever reaches the output. */
  char all[32];
  for (int i = 0; i < 32; i++)
    all[i] = (char)i;
  json_of(&b, cs_str_n(all, 32));
  for (size_t i = 0; i < b.len; i++)
    cr_assert_geq((unsigned char)b.data[i], 0x20, "raw control byte at %zu", i);
  cs_buf_free(&b);
}

Test(buf, json_line_separators) {
  cs_buf b = {0};
  cr_assert_str_eq(json_of(&b, cs_str_c("a\xe2\x80\xa8z")), "\"a\\u2028z\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\xe2\x80\xa9")), "\"\\u2029\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\xe2\x80\xa8\xe2\x80\xa9")), "\"\\u2028\\u2029\"");
  /* Neighbours in the same block (U+2027, U+202A) and other UTF-8 pass as bytes. */
  cr_assert_str_eq(json_of(&b, cs_str_c("\xe2\x80\xa7\xe2\x80\xaa")), "\"\xe2\x80\xa7\xe2\x80\xaa\"");
  cr_assert_str_eq(json_of(&b, cs_str_c("\xf0\x9f\x98\x80 \xc3\xa9")), "\"\xf0\x9f\x98\x80 \xc3\xa9\"");
  /* A cut sequence at the end is not mistaken for U+2028. */
  cr_assert_str_eq(json_of(&b, cs_str_n("\xe2\x80", 2)), "\"\xe2\x80\"");
  cs_buf_free(&b);
}

Test(buf, json_appends_after_existing_text) {
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"id\":");
  cs_buf_json_str(&b, cs_str_c("x\"y"));
  cs_buf_putc(&b, '}');
  cr_assert_str_eq(b.data, "{\"id\":\"x\\\"y\"}");
  /* A long string needing no escape crosses the initial capacity in one piece. */
  char big[3000];
  memset(big, 'q', sizeof big);
  cs_buf_clear(&b);
  cs_buf_json_str(&b, cs_str_n(big, sizeof big));
  cr_assert_eq(b.len, sizeof big + 2);
  cr_assert_eq(b.data[0], '"');
  cr_assert_eq(b.data[b.len - 1], '"');
  cs_buf_free(&b);
}

/* Escapes are found at every offset: runs are scanned eight bytes at a time, then byte by byte. */
Test(buf, json_escapes_at_every_offset) {
  static const struct {
    const char *raw, *esc;
  } special[] = {{"\"", "\\\""}, {"\\", "\\\\"}, {"\n", "\\u000a"}, {"\x1f", "\\u001f"}, {"\xe2\x80\xa8", "\\u2028"}};
  cs_buf b = {0};
  char in[64], want[128];
  for (size_t k = 0; k < sizeof special / sizeof *special; k++)
    for (size_t len = 0; len < 24; len++)
      for (size_t pos = 0; pos <= len; pos++) {
        size_t rl = strlen(special[k].raw);
        memset(in, 'a', pos);
        memcpy(in + pos, special[k].raw, rl);
        memset(in + pos + rl, 'z', len - pos);
        snprintf(want, sizeof want, "\"%.*s%s%.*s\"", (int)pos, in, special[k].esc, (int)(len - pos), in + pos + rl);
        cr_assert_str_eq(json_of(&b, cs_str_n(in, len + rl)), want, "special %zu, length %zu, offset %zu", k, len, pos);
      }
  /* 0xE2 not followed by 0x80 0xA8/0xA9 is copied, also at the end of an eight-byte step. */
  cr_assert_str_eq(json_of(&b, cs_str_c("1234567\xe2\x82\xac")), "\"1234567\xe2\x82\xac\"");
  cs_buf_free(&b);
}

/* The shortest text that reads back as the same double: never a rounded value that reads as another. */
Test(buf, double_is_the_shortest_text_that_reads_back) {
  const struct {
    double v;
    const char *text;
  } cases[] = {{5.4, "5.4"},       {5, "5"},       {1e-7, "1e-07"},  {0.2, "0.2"}, {0.1 + 0.2, "0.30000000000000004"},
               {1693.4, "1693.4"}, {-0.5, "-0.5"}, {1e300, "1e+300"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cs_buf b = {0};
    cs_buf_double(&b, cases[i].v);
    cr_assert_str_eq(b.data, cases[i].text);
    cr_assert_eq(strtod(b.data, NULL), cases[i].v);
    cs_buf_free(&b);
  }
}

Test(buf, json_strs_is_an_array_of_string_literals) {
  cs_buf b = {0};
  cs_buf_json_strs(&b, NULL, 0);
  cr_assert_str_eq(b.data, "[]");
  cs_buf_clear(&b);
  const cs_str v[] = {cs_str_c("a\"b"), CS_NULL_STR, cs_str_c("")};
  cs_buf_json_strs(&b, v, 3);
  cr_assert_str_eq(b.data, "[\"a\\\"b\",null,\"\"]");
  cs_buf_free(&b);
}
