/* harness/vectors.h: the canonical v1 vectors (corpus/vectors/canonical_v1.json), Wycheproof style:
 * self-describing test cases with stable tcIds, comments, flags (statistics labels), the input
 * history, and the expected canonical IDs and wire IDs per target under the default rules. */
#ifndef CS_HARNESS_VECTORS_H
#define CS_HARNESS_VECTORS_H

#include <cjson/cJSON.h>

#include "core/error.h"
#include "impls/impl.h"

#define CS_VECTORS_DEFAULT "corpus/vectors/canonical_v1.json"

/* Loads and validates the file's shape. The caller frees with cJSON_Delete. */
cJSON *cs_vectors_load(const char *path, cs_err *err);
/* Checks the canonicalize answers of `impl` on every vector. Returns 1 all agree, 0 a mismatch
 * (first one described in `why`, its history in *history_json, heap), -1 the file is unusable. */
int cs_vectors_check_impl(cs_impl *impl, const cJSON *root, char *why, size_t why_len, char **history_json,
                          uint64_t *checked, cs_err *err);

#endif
