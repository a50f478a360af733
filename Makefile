# callsign build. `make run` installs what is missing (as root), builds and runs the default job;
# `make test` runs the unit tests under ASan+UBSan, then the end-to-end tests.
CC ?= cc
ifeq ($(origin CC),default)
CC := cc
endif
PKG_CONFIG ?= pkg-config
LIBS_PC := libcjson libpcre2-8 libcrypto libcurl
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
DEFS := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
INCS := -I. $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
LDLIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null || echo -lcjson -lpcre2-8 -lcrypto -lcurl) -lm -lpthread
OPT ?= -O2 -g
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# gcc links UBSan as a library of its own, which ignores UBSAN_OPTIONS=log_path beside ASan; linked
# statically it honours it, so the end-to-end tests collect every report (tests/e2e/lib/common.sh).
SAN_LD := $(SAN) $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),,-static-libubsan)

# Layers, lowest first (a folder includes only from folders before it).
LAYERS := core providers generators impls reports harness
LIB_SRC := $(filter-out harness/main.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
MAIN_SRC := harness/main.c
UNIT_SRC := $(wildcard tests/unit/test_*.c)

REL_OBJ := $(patsubst %.c,build/rel/%.o,$(LIB_SRC))
SAN_OBJ := $(patsubst %.c,build/san/%.o,$(LIB_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,build/san/tests/%,$(UNIT_SRC))

.PHONY: all run expected test unit e2e bench clean deps format check-format adapters clang
all: build/callsign build/adapter-c

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC $<"; $(CC) $(WARN) $(DEFS) $(INCS) $(OPT) -MMD -MP -c $< -o $@

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC(san) $<"; $(CC) $(WARN) $(DEFS) $(INCS) -O1 -g $(SAN) -MMD -MP -c $< -o $@

build/callsign: $(REL_OBJ) build/rel/harness/main.o
	@echo "LD $@"; $(CC) $(OPT) -o $@ $^ $(LDLIBS)

build/san/callsign: $(SAN_OBJ) build/san/harness/main.o
	@echo "LD $@"; $(CC) $(SAN_LD) -o $@ $^ $(LDLIBS)

build/san/tests/%: tests/unit/%.c $(SAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "LD $@"; $(CC) $(WARN) $(DEFS) $(INCS) -O1 -g $(SAN) -MMD -MP -o $@ $< $(SAN_OBJ) $(LDLIBS) -lcriterion

build/adapter-c: examples/adapters/c/normalizer.c
	@mkdir -p build
	@echo "CC $@"; $(CC) $(WARN) $(DEFS) $(OPT) $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null) -o $@ $< -lcjson -lcrypto

deps:
	@sh mk/deps.sh

# The built-ins fail on purpose: the run passes when they fail exactly the listed cells.
# The default job replays a fresh copy of the committed corpus, so the new cases it saves land in
# build/ and every `make run` starts from the same corpus and leaves the tree clean.
run: deps all
	@rm -rf build/run-corpus && cp -r corpus/regressions build/run-corpus
	build/callsign run --expect corpus/expected/builtins.txt --corpus build/run-corpus

# After a deliberate change to a built-in or a property: the same job as `make run`, writing its
# failures as the new list (review the diff). Without the fresh copy, the cases this run saves
# would land in corpus/regressions/ and change what the next run replays.
expected: all
	@rm -rf build/run-corpus && cp -r corpus/regressions build/run-corpus
	build/callsign run --quiet --corpus build/run-corpus --failures corpus/expected/builtins.txt >/dev/null; \
	  rc=$$?; [ $$rc -le 1 ] || exit $$rc
	@git diff --stat -- corpus/expected/builtins.txt 2>/dev/null || true

unit: $(UNIT_BIN)
	@sh mk/run-unit.sh $(UNIT_BIN)

e2e: build/san/callsign build/adapter-c
	@sh mk/run-e2e.sh build/san/callsign

# Unit tests (ASan+UBSan), then the end-to-end tests of the sanitized binary; one closing total.
test: $(UNIT_BIN) build/san/callsign build/adapter-c clang
	@sh mk/test.sh $(UNIT_BIN)

build/bench-canon: tests/bench/bench_canon.c $(REL_OBJ)
	@echo "LD $@"; $(CC) $(WARN) $(DEFS) $(INCS) -O2 -o $@ $< $(REL_OBJ) $(LDLIBS)

bench: build/callsign build/adapter-c build/bench-canon
	@sh mk/bench.sh build/callsign

# Both compilers must build the tree warning-free: `make test` compiles everything with clang too.
CLANG_OBJ := $(patsubst %.c,build/clang/%.o,$(LIB_SRC) $(MAIN_SRC))
build/clang/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CLANG $<"; clang $(WARN) $(DEFS) $(INCS) -O2 -MMD -MP -c $< -o $@

clang: $(CLANG_OBJ)

format:
	clang-format -i $(foreach d,$(LAYERS) tests fuzz examples/adapters/c,$(wildcard $(d)/*.[ch] $(d)/*/*.[ch]))

check-format:
	clang-format --dry-run --Werror $(foreach d,$(LAYERS) tests fuzz examples/adapters/c,$(wildcard $(d)/*.[ch] $(d)/*/*.[ch]))

clean:
	rm -rf build

# Coverage-guided fuzzing (fuzz/). `make fuzz` builds the properties target with libFuzzer and
# runs it for FUZZ_TIME seconds on FUZZ_JOBS processes, seeded from fuzz/seeds/, and prints the
# executions per second; `make fuzz-reader` does the same for the reader target; `make fuzz-afl`
# builds both for AFL++. FUZZ_SAN adds sanitizers (FUZZ_SAN=address,undefined: memory errors, at
# a fraction of the speed; ClusterFuzzLite builds with them). These targets check for clang's
# fuzzer runtime themselves (mk/fuzz.sh): `make test` does not need it.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_JOBS ?= 2
FUZZ_SAN ?=
# Each target has its own input cap (-max_len, as in .clusterfuzzlite/build.sh's options): 512
# bytes of choices for the properties target, 4096 for the reader, whose seed histories run to
# about 800 bytes and would no longer parse cut at 512.
# libFuzzer options for both targets: the entropic schedule's bookkeeping and the once-a-second
# reload of the shared corpus directory each cost about a third of the executions (measured).
FUZZ_ARGS ?= -entropic=0 -reload=0
FUZZ_COMMA := ,
FUZZ_DIR := build/fuzz$(if $(FUZZ_SAN),-$(subst $(FUZZ_COMMA),-,$(FUZZ_SAN)))
FUZZ_CFLAGS := -g -O2 -fno-omit-frame-pointer $(if $(FUZZ_SAN),-fsanitize=$(FUZZ_SAN) -fno-sanitize-recover=all)
FUZZ_LDFLAGS := -fsanitize=fuzzer$(if $(FUZZ_SAN),$(FUZZ_COMMA)$(FUZZ_SAN))
FUZZ_COV_FULL := -fsanitize=fuzzer-no-link
FUZZ_COV_EDGE := -fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp
# The properties target (objects in props/) gets edge coverage where it steers (the generators
# that decode the input, the reference, the checks) and none elsewhere: libFuzzer scans every
# counter after every execution, so counters of code the target never runs cost throughput for
# nothing, and comparison tracing doubled the cost of the generators' loops without reaching more
# coverage (measured: same edges and features after 30 s, 15% fewer executions). The reader
# target (objects in full/), which parses bytes directly, is instrumented fully everywhere.
FUZZ_PROPS_EDGE := $(filter-out providers/probe.c providers/http.c,$(wildcard providers/*.c)) \
                   impls/inproc.c impls/builtin_reference.c harness/runner.c harness/property.c
FUZZ_PROPS_OBJ := $(patsubst %.c,$(FUZZ_DIR)/props/%.o,$(LIB_SRC))
FUZZ_FULL_OBJ := $(patsubst %.c,$(FUZZ_DIR)/full/%.o,$(LIB_SRC))
$(FUZZ_DIR)/props/%.o: FUZZ_COV =
$(FUZZ_DIR)/props/generators/%.o $(FUZZ_DIR)/props/fuzz/%.o: FUZZ_COV = $(FUZZ_COV_EDGE)
$(patsubst %.c,$(FUZZ_DIR)/props/%.o,$(FUZZ_PROPS_EDGE)): FUZZ_COV = $(FUZZ_COV_EDGE)
$(FUZZ_DIR)/full/%.o: FUZZ_COV = $(FUZZ_COV_FULL)
AFL_OBJ := $(patsubst %.c,build/afl/obj/%.o,$(LIB_SRC))

$(FUZZ_DIR)/props/%.o $(FUZZ_DIR)/full/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC(fuzz) $<"; $(FUZZ_CC) $(WARN) $(DEFS) $(INCS) $(FUZZ_CFLAGS) $(FUZZ_COV) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_properties: $(FUZZ_DIR)/props/fuzz/fuzz_properties.o $(FUZZ_PROPS_OBJ)
	@echo "LD $@"; $(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

$(FUZZ_DIR)/fuzz_reader: $(FUZZ_DIR)/full/fuzz/fuzz_reader.o $(FUZZ_FULL_OBJ)
	@echo "LD $@"; $(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

build/afl/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC(afl) $<"; afl-clang-fast $(WARN) $(DEFS) $(INCS) -g -O2 -MMD -MP -c $< -o $@

build/afl/fuzz_%: build/afl/obj/fuzz/fuzz_%.o $(AFL_OBJ)
	@echo "LD $@"; afl-clang-fast -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

.PRECIOUS: $(FUZZ_DIR)/props/%.o $(FUZZ_DIR)/full/%.o build/afl/obj/%.o
.PHONY: fuzz fuzz-reader fuzz-afl fuzz-seeds fuzz-check
fuzz-check:
	@sh mk/fuzz.sh check libfuzzer $(FUZZ_CC)

fuzz: fuzz-check
	@$(MAKE) --no-print-directory $(FUZZ_DIR)/fuzz_properties
	@sh mk/fuzz.sh run $(FUZZ_DIR)/fuzz_properties $(FUZZ_TIME) $(FUZZ_JOBS) fuzz/seeds/properties -max_len=512 $(FUZZ_ARGS)

fuzz-reader: fuzz-check
	@$(MAKE) --no-print-directory $(FUZZ_DIR)/fuzz_reader
	@sh mk/fuzz.sh run $(FUZZ_DIR)/fuzz_reader $(FUZZ_TIME) $(FUZZ_JOBS) fuzz/seeds/reader -max_len=4096 -dict=fuzz/ids.dict $(FUZZ_ARGS)

# AFL++ builds of both targets (afl-clang-fast links its own driver for LLVMFuzzerTestOneInput).
fuzz-afl:
	@sh mk/fuzz.sh check afl
	@$(MAKE) --no-print-directory build/afl/fuzz_properties build/afl/fuzz_reader
	@echo "run: afl-fuzz -i fuzz/seeds/properties -o build/afl/out -- build/afl/fuzz_properties"

# Regenerates fuzz/seeds/ from the corpus's replay tokens and the first generated cases.
fuzz-seeds: build/callsign
	@sh fuzz/seeds.sh fuzz/seeds build/callsign

-include $(shell find build -name '*.d' 2>/dev/null)
