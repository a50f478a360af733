/* harness/corpus.h: the regression corpus: every shrunk failure saved as a small self-describing JSON
 * case (implementation, property, target, replay token, message, the shrunk history) under
 * DIR/<implementation>/, and replayed first on the next run, like an example database. A case
 * without a token is a literal history case (a collision pair planted by `collide`): its history is
 * run as it is, before the token cases. Its "planted_twin" says which call collided with which:
 * [from, to] (calls counted in history order, from < to), or null for none; a file without the
 * member (written before it existed) is a collide pair when its history has exactly two calls. */
#ifndef CS_HARNESS_CORPUS_H
#define CS_HARNESS_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "harness/runner.h"

typedef struct {
  uint64_t **v; /* choice sequences (heap) */
  size_t *len;
  size_t n;
  const cs_history **lit;    /* literal history cases (heap array; histories in `arena`) */
  cs_literal_twin *lit_twin; /* each one's planted twin (heap array) */
  const char **lit_path;     /* each one's file (heap array; paths in `arena`), for its replay */
  size_t nlit;
  size_t nstale;           /* token cases whose token no longer makes their saved history (in lit) */
  const char *first_stale; /* the first one's file (in `arena`), or NULL */
  cs_arena arena;
} cs_corpus;

/* Loads every *.json case under dir/impl/ (a missing directory is an empty corpus): token cases
 * into v/len, literal cases into lit. A malformed file, or one that is not a regular file (a FIFO
 * would block), is skipped and every other case still loads; then -1 with err naming the first
 * malformed file, ending "(corpus case skipped)" and counting any others, for the caller to print as
 * a warning. A directory that is there but cannot be read: -1 with err saying so, nothing loaded.
 * A name that had to change (cs_corpus_dirname) also replays, after its own, the cases an earlier
 * callsign saved for it under the name without the hash (those whose "impl" is this name): -1 with
 * err saying so and where they belong now, unless a malformed file took the warning. */
int cs_corpus_load(const char *dir, const char *impl, cs_corpus *out, cs_err *err);
void cs_corpus_free(cs_corpus *c);
/* A token case whose token no longer makes the history saved with it (a generator changed since
 * it was saved; IDs planted as implementation-aware twins are not compared) is loaded as a literal
 * case of its saved history, with the planted twin its file records (none in files saved before
 * the member), so it still tests what it saved. -1 with err counting them and naming the first,
 * for the caller to print as a warning; 0 when there is none. */
int cs_corpus_stale(const cs_corpus *c, cs_err *err);
/* Points rc's replay and literal cases at the corpus (which must outlive the run). */
void cs_corpus_replay_first(const cs_corpus *c, cs_run_config *rc);
/* Saves one failure; the file name is derived from property, target and token, so saving the same
 * case twice writes one file, and a file that already holds the case is left untouched (its message
 * as first found). The case's first planted twin (cs_outcome.planted), if any, is written as
 * "planted_twin", which only a token that no longer makes the history needs. max_id_len: the ID bound the case was
 * generated under (0 or the default: not written; another is, as "max_id_len", since its token makes another case under
 * the default). Returns 0, or -1 with err. */
int cs_corpus_save(const char *dir, const char *impl, const cs_outcome *cell, const char *target_name,
                   uint32_t max_id_len, cs_err *err);
/* Reads one saved case file ("-": stdin), reading it once, so a pipe or FIFO works. A token case
 * gives its choices (*v, heap) and the ID bound it was found under (*max_id_len; 0: the default) and
 * returns 0; a literal history case gives its history (memory in
 * `a`) and its planted twin (into *twin when not NULL) and returns 1; a token case whose token no
 * longer makes its saved history (see cs_corpus_stale) gives that history and its recorded twin,
 * and returns 2. Either gives its
 * property/target names ("" and
 * "-" when the file gives none). -1 with err naming the file (stdin as "stdin"): it does not read, is not a JSON
 * object, lacks both "token" and "history", has a member of the wrong type, or names an unknown property or target
 * (replay would otherwise quietly check every property or target). */
int cs_corpus_read_file(const char *path, cs_arena *a, cs_history *lit, cs_literal_twin *twin, uint64_t **v, size_t *n,
                        uint32_t *max_id_len, char *property, size_t plen, char *target, size_t tlen, cs_err *err);
/* Saves a literal history case under dir/impl/ as <property>@<target>-<hash of the history>.json
 * (saving the same history twice writes one file); `message` says what it shows, `twin` its planted
 * twin (NULL: the member is left out, as a case whose twin is not known). The path written goes to
 * *path (heap, the caller frees it) when path is not NULL. Returns 0, or -1 with err. */
int cs_corpus_save_literal(const char *dir, const char *impl, const char *property, const char *target_name,
                           const char *message, const cs_history *h, const cs_literal_twin *twin, char **path,
                           cs_err *err);
/* Checks, making nothing, that cases could be saved under dir/<impl>/: its nearest existing
 * ancestor (itself when it is there) is a directory callsign can write in. collide, whose planted
 * pair is its output, refuses an unwritable corpus before its search; run and fuzz, whose reports
 * hold their failures, try each save and warn of those that failed. Returns 0, or -1 with err. */
int cs_corpus_writable(const char *dir, const char *impl, cs_err *err);
/* A literal case's "planted_twin" member, read and written in one form by the corpus files and the
 * fuzz summary: [from, to] or null. cs_literal_twin_json writes it (CS_TWIN_JSON bytes at most);
 * cs_literal_twin_parse reads it: 0 with *out (null: not set), or -1 when it is not null or two
 * whole call numbers with from < to < calls. */
#define CS_TWIN_JSON 32
void cs_literal_twin_json(const cs_literal_twin *t, char out[CS_TWIN_JSON]);
struct cJSON;
int cs_literal_twin_parse(const struct cJSON *m, uint32_t calls, cs_literal_twin *out);
/* A directory-safe form of an implementation name, within len bytes with its NUL: letters, digits,
 * '-', '_' and '.' stay, any other byte becomes '_'. A name that had to change (another byte, cut to
 * fit, empty, only dots) ends in '-' and 8 hex digits of its SHA-256, so that two names never share
 * a directory by reading alike; a name that is already safe is its own directory. */
void cs_corpus_dirname(const char *impl, char *out, size_t len);

#endif
