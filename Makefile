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

# Layers, lowest first (a folder includes only from folders before it).
LAYERS := core providers generators impls reports harness
LIB_SRC := $(filter-out harness/main.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
MAIN_SRC := harness/main.c
UNIT_SRC := $(wildcard tests/unit/test_*.c)

REL_OBJ := $(patsubst %.c,build/rel/%.o,$(LIB_SRC))
SAN_OBJ := $(patsubst %.c,build/san/%.o,$(LIB_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,build/san/tests/%,$(UNIT_SRC))

.PHONY: all run test unit e2e bench clean deps format check-format adapters clang
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
	@echo "LD $@"; $(CC) $(SAN) -o $@ $^ $(LDLIBS)

build/san/tests/%: tests/unit/%.c $(SAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "LD $@"; $(CC) $(WARN) $(DEFS) $(INCS) -O1 -g $(SAN) -o $@ $< $(SAN_OBJ) $(LDLIBS) -lcriterion

build/adapter-c: examples/adapters/c/normalizer.c
	@mkdir -p build
	@echo "CC $@"; $(CC) $(WARN) $(DEFS) $(OPT) $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null) -o $@ $< -lcjson -lcrypto

deps:
	@sh mk/deps.sh

run: deps all
	build/callsign run

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

-include $(shell find build -name '*.d' 2>/dev/null)
