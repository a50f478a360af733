/* fuzz/fuzz_reader.c: the coverage-guided target of callsign's readers of untrusted text: the JSON
 * history reader (core/history_json.h) and the protocol client's line parsers (hello and answer
 * lines, impls/subprocess_parse.h). Every input goes to all of them; none may crash, and a history
 * that reads must write a text that reads back and writes the same text again (abort otherwise):
 * the written form is a fixpoint of write(read(.)). The input itself is not compared: the writer
 * drops white space and unknown members and prints numbers in cJSON's way; payloads (`args`,
 * `content`, `text`) are kept as the JSON value they were, a string as a string. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/history_json.h"
#include "impls/subprocess_parse.h"

/* The fuzzing engines call a plain function per input: the arena and the requests the answer lines
 * are judged against are made once and reused. */
typedef struct {
  cs_arena arena;
  cs_history emit_history; /* two calls, two results: the answer arrays must have these sizes */
  cs_str ids[3];
  cs_buf a, b;
} reader_state;

static reader_state *state(void) {
  static reader_state st;
  static bool ready;
  if (ready)
    return &st;
  static const char history[] = "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":["
                                "{\"id\":\"call_1\",\"name\":\"a\"},{\"id\":\"call|2\",\"name\":\"b\"}]},"
                                "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_1\",\"name\":\"a\"},"
                                "{\"call_id\":null,\"name\":\"b\"}]}]}";
  static cs_arena keep;
  cs_err err;
  if (cs_history_parse(cs_str_c(history), NULL, &keep, &st.emit_history, &err)) {
    fprintf(stderr, "fuzz_reader: the fixed history does not read: %s\n", err.msg);
    abort();
  }
  st.ids[0] = cs_str_c("call_1");
  st.ids[1] = cs_str_c("toolu_01");
  st.ids[2] = cs_str_c("");
  ready = true;
  return &st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader_state *st = state();
  cs_arena_reset(&st->arena);
  cs_str line = {(const char *)data, size};
  cs_err err;
  char why[600];

  /* The history reader, and the round trip of what it accepts: write(h) == write(read(write(h))). */
  cs_history h;
  if (cs_history_parse(line, NULL, &st->arena, &h, &err) == 0) {
    cs_history_index ix;
    cs_history_index_build(&h, &st->arena, &ix);
    cs_buf_clear(&st->a);
    cs_history_write(&st->a, &h);
    cs_history h2;
    if (cs_history_parse(cs_buf_view(&st->a), NULL, &st->arena, &h2, &err)) {
      fprintf(stderr, "fuzz_reader: a written history does not read back: %s\n%s\n", err.msg, st->a.data);
      abort();
    }
    cs_buf_clear(&st->b);
    cs_history_write(&st->b, &h2);
    if (st->a.len != st->b.len || memcmp(st->a.data, st->b.data, st->a.len) != 0) {
      fprintf(stderr, "fuzz_reader: the write/read round trip changes the history:\n%s\n%s\n", st->a.data, st->b.data);
      abort();
    }
  }

  /* The protocol client's parsers: hello, then answers to an emit and a normalize request. */
  cs_impl_info info;
  char *name = NULL, *version = NULL;
  char unknown[128];
  cs_subprocess_parse_hello(line, &info, &name, &version, unknown, sizeof unknown, why, sizeof why);
  free(name);
  free(version);
  cs_request emit = {.op = CS_OP_EMIT, .target = CS_PROV_ANTHROPIC, .history = &st->emit_history};
  cs_request norm = {.op = CS_OP_NORMALIZE, .target = CS_PROV_MISTRAL, .ids = st->ids, .nids = 3};
  cs_reply reply;
  memset(&reply, 0, sizeof reply);
  cs_subprocess_parse_answer((size_t)1 << 20, &emit, 1, 1, line, &reply, &st->arena, why, sizeof why);
  memset(&reply, 0, sizeof reply);
  cs_subprocess_parse_answer((size_t)1 << 20, &norm, 5, 2, line, &reply, &st->arena, why, sizeof why);
  return 0;
}
