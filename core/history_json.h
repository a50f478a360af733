/* core/history_json.h: reading and writing histories as PROTOCOL.md JSON (through cJSON).
 * Reading is strict and total: any input either yields a history or a one-line error naming the
 * place (line:column for syntax, a JSON path such as turns[2].calls[0].id for content). */
#ifndef CS_CORE_HISTORY_JSON_H
#define CS_CORE_HISTORY_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/history.h"

typedef struct {
  size_t max_input_bytes; /* 0: 64 MiB */
  size_t max_id_bytes;    /* 0: CS_DEFAULT_MAX_ID_BYTES (IDs and call_ids) */
  size_t max_turns;       /* 0: 100000 */
} cs_history_limits;

/* 1 MiB: the longest ID the generators may make (--max-id-len at most this), so that every history
 * callsign writes (a report's shrunk case, a saved case file) can be read back by canon, emit and
 * replay. */
#define CS_DEFAULT_MAX_ID_BYTES (1u << 20)

/* Parses `json` (one history object) into `out`, memory in `a`. Returns 0, or -1 with `err` set. */
int cs_history_parse(cs_str json, const cs_history_limits *lim, cs_arena *a, cs_history *out, cs_err *err);
/* Converts an already parsed cJSON value; `path` prefixes error places (e.g. "history"). */
int cs_history_from_cjson(const cJSON *v, const char *path, const cs_history_limits *lim, cs_arena *a, cs_history *out,
                          cs_err *err);
/* Checks raw JSON text before cJSON sees it: size, UTF-8, no NUL byte, no \u0000 escape (cJSON
 * would silently cut a string there). Returns 0 or -1 with `err` naming line:column. */
int cs_json_precheck(cs_str json, size_t max_bytes, cs_err *err);
/* Checks JSON text that cJSON has parsed for what cJSON lets through and RFC 8259 forbids: a number
 * with a leading zero or without digits around its '.' (05, 5., -.5), and a control character other
 * than white space (raw in a string, or anywhere outside one). 0, or -1 with `err` naming
 * line:column. */
int cs_json_strict_tokens(cs_str json, cs_err *err);
/* A member name that occurs twice in object `obj`: cJSON keeps both and finds the first, while
 * another reader may take the last, so such an object says two things. 0 with *dup the name (NULL
 * when every name is unique), or -1 when there is no memory to sort the names of a large object. */
int cs_json_repeated_name(const cJSON *obj, const char **dup);
/* 0 when every member name of object `obj` occurs once; else -1 with err "the member \"NAME\"
 * occurs twice (a name may occur once)" (or out of memory), for the caller to prefix its place. */
int cs_json_names_once(const cJSON *obj, cs_err *err);
/* Parses JSON text strictly: cs_json_precheck (max_bytes 0: its default), then cJSON, then nothing
 * but white space after the value, then cs_json_strict_tokens; `what` names the value in that error
 * ("the history object").
 * Returns the value (cJSON_Delete it), or NULL with `err` naming line:column. */
cJSON *cs_json_parse_strict(cs_str json, size_t max_bytes, const char *what, cs_err *err);
/* Line and column (1-based) of byte `off` in `json`. */
void cs_json_line_col(cs_str json, size_t off, size_t *line, size_t *col);
/* The offset of the first byte after `end` (where cJSON stopped; NULL: the end of json) that is not
 * JSON white space; json.len when there is none. */
size_t cs_json_space_after(cs_str json, const char *end);

/* Appends the history as compact JSON (one line, no newline). */
void cs_history_write(cs_buf *b, const cs_history *h);
/* Appends an emit or canonicalize answer as PROTOCOL.md writes it: {"calls":[...],"results":[...]}
 * (compact; a null entry as null). */
void cs_answer_write(cs_buf *b, const cs_answer *ans);

#endif
