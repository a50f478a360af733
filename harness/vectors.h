/* harness/vectors.h: the canonical v1 vectors (corpus/vectors/canonical_v1.json), Wycheproof style:
 * self-describing test cases with stable tcIds, comments, flags (statistics labels), the input
 * history, and the expected canonical IDs and wire IDs per target under the default rules. */
#ifndef CS_HARNESS_VECTORS_H
#define CS_HARNESS_VECTORS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "impls/impl.h"

#define CS_VECTORS_DEFAULT "corpus/vectors/canonical_v1.json"
/* The contract of vectors.canonical_v1 against vectors file `file`: a string literal, or with "%s" a
 * format that names the file a run used. */
#define CS_VECTORS_CONTRACT(file) "byte-exact agreement with " file " (only for implementations claiming the scheme)"
/* tcIds are whole numbers from 1 to this (what a JSON reader holds exactly in an int). */
#define CS_VECTORS_MAX_TCID 1000000000
/* The one kind of test group the format defines: a history and its canonical and wire IDs. */
#define CS_VECTORS_GROUP_TYPE "CanonicalHistory"

/* The default vectors file: CS_VECTORS_DEFAULT under the working directory when it is there, else
 * under the source tree the binary was built in (build/callsign, build/san/callsign), so a run
 * from another directory (a CI job in the user's repository) still finds it. Falls back to
 * CS_VECTORS_DEFAULT, which the load error then names. `buf` holds the path when it is not. */
const char *cs_vectors_locate(char *buf, size_t cap);
/* Loads and validates the file's shape: every test group of type CS_VECTORS_GROUP_TYPE, whole tcIds
 * from 1 to CS_VECTORS_MAX_TCID, each once, each test with a history that
 * parses, at least one test, and (when `counted`) numberOfTests equal to the tests held and each test's
 * expectations: "canonical" and, under "wire", every target by name, each {"calls":[...],"results":[...]}
 * of strings or nulls, as many as the history's calls and results. --generate reads an edited file without
 * the count or the expectations, which it recomputes. The caller frees with cJSON_Delete. */
cJSON *cs_vectors_load(const char *path, bool counted, cs_err *err);
/* The first vector an implementation disagrees with, as a report shows it. */
typedef struct {
  char why[500];      /* one line: "tcId 4: call 0 expected \"...\", got \"...\"" (IDs as JSON strings) */
  char *history_json; /* heap: the vector's history */
  char *answer_json;  /* heap: the implementation's canonicalize answer, or NULL when it gave none */
  uint32_t turns, calls;
} cs_vector_mismatch;
/* Checks the canonicalize answers of `impl` on every vector. Returns 1 all agree, 0 a mismatch
 * (the first one in *m, whose strings the caller frees), -1 the file is unusable. */
int cs_vectors_check_impl(cs_impl *impl, const cJSON *root, cs_vector_mismatch *m, uint64_t *checked, cs_err *err);

#endif
