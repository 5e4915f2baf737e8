# memrec: record a program's memory behaviour once, analyse it many times.
#
#   make          commands into build/bin/, the Valgrind tool into build/valgrind/
#   make test     installs what is missing, builds (also under ASan+UBSan), runs every test
#   make demo     installs what is missing, records the samples, fills a profile database, draws plots
#   make bench    speed and size against the targets, printed as ratios
#   make fuzz     runs every fuzz target for FUZZ_SECONDS each
#   make install  PREFIX=/usr/local (commands, header); the tool goes into Valgrind's libexec dir
#
# Sources are found by name, so adding a file needs no edit here:
#   format/*.c          the trace library (the only code touching trace bytes)
#   tools/lib/*/*.c     analysis code shared by the commands, one folder per concern
#   tools/trace-*.c     one command each (a thin main); tools/trace-*.sh are shell commands
#   tests/unit/test_*.c cmocka tests, built with ASan+UBSan
#   tests/fuzz/fuzz_*.c libFuzzer targets
#   bench/*.c           benchmark programs; bench/*.sh are run by `make bench` in name order
#   bench/lib/          what the bench scripts share (sourced, not run)
#   samples/*.c         small programs with known memory behaviour
#   recorder/           the Valgrind tool: see recorder/recorder.mk

PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= cc
FUZZ_CC   ?= clang
FUZZ_SECONDS ?= 60

WARN      := -Wall -Wextra -Werror
CPPFLAGS  += -Iformat -Itools/lib -D_GNU_SOURCE
CFLAGS    ?= -O2 -g
OWNFLAGS  := -std=gnu11 $(WARN) -MMD -MP
LDLIBS    := -lzstd -lsqlite3 -lm -lpthread
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

FORMAT_SRC  := $(sort $(wildcard format/*.c))
TOOLLIB_SRC := $(sort $(wildcard tools/lib/*/*.c))
CMD_C       := $(sort $(wildcard tools/trace-*.c))
CMD_SH      := $(sort $(wildcard tools/trace-*.sh))
TEST_SRC    := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
BENCH_SRC   := $(sort $(wildcard bench/*.c))
SAMPLE_SRC  := $(sort $(wildcard samples/*.c))

CMDS     := $(patsubst tools/%.c,$(BUILD)/bin/%,$(CMD_C)) \
            $(patsubst tools/%.sh,$(BUILD)/bin/%,$(CMD_SH))
ASANCMDS := $(patsubst tools/%.c,$(BUILD)/asan/bin/%,$(CMD_C)) \
            $(patsubst tools/%.sh,$(BUILD)/asan/bin/%,$(CMD_SH))
TESTS    := $(patsubst tests/unit/%.c,$(BUILD)/asan/tests/%,$(TEST_SRC))
FUZZERS  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
SAMPLES  := $(patsubst samples/%.c,$(BUILD)/samples/%,$(SAMPLE_SRC))

# Static libraries: libmrtrace (format) and libmrtools (shared analysis code),
# once plain and once sanitized for the tests.
LIBTRACE      := $(BUILD)/lib/libmrtrace.a
LIBTOOLS      := $(BUILD)/lib/libmrtools.a
ASAN_LIBTRACE := $(BUILD)/asan/lib/libmrtrace.a
ASAN_LIBTOOLS := $(BUILD)/asan/lib/libmrtools.a

.PHONY: all tools samples deps test unit-test bench demo fuzz install clean recorder install-recorder
.DELETE_ON_ERROR:
# Keep objects made through pattern chains, so a second make rebuilds nothing.
.SECONDARY:

all: tools recorder samples

tools: $(CMDS)
samples: $(SAMPLES)

deps:
	@scripts/deps.sh

# ---- plain build ----------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(OWNFLAGS) -c $< -o $@

$(LIBTRACE): $(patsubst %.c,$(BUILD)/obj/%.o,$(FORMAT_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# sql/ compiled in: the schema and canned queries travel inside the commands.
SQL_FILES := $(wildcard sql/schema/*.sql sql/queries/*.sql)
$(BUILD)/gen/sql_embedded.c: $(SQL_FILES) scripts/embed-sql.sh
	@mkdir -p $(@D)
	scripts/embed-sql.sh $@
TOOLLIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(TOOLLIB_SRC)) $(BUILD)/obj/gen/sql_embedded.o
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(OWNFLAGS) -c $< -o $@

$(LIBTOOLS): $(TOOLLIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/bin/trace-%: $(BUILD)/obj/tools/trace-%.o $(LIBTOOLS) $(LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/trace-%: tools/trace-%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# ---- sanitized build for the tests ------------------------------------------
$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(OWNFLAGS) $(SANFLAGS) -c $< -o $@

$(ASAN_LIBTRACE): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(FORMAT_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(OWNFLAGS) $(SANFLAGS) -c $< -o $@

$(ASAN_LIBTOOLS): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(TOOLLIB_SRC)) $(BUILD)/asan/obj/gen/sql_embedded.o
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/bin/trace-%: $(BUILD)/asan/obj/tools/trace-%.o $(ASAN_LIBTOOLS) $(ASAN_LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/asan/bin/trace-%: tools/trace-%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/asan/tests/%: $(BUILD)/asan/obj/tests/unit/%.o $(ASAN_LIBTOOLS) $(ASAN_LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# The format's own tests need nothing but the format library.
$(BUILD)/asan/tests/test_format_%: $(BUILD)/asan/obj/tests/unit/test_format_%.o $(ASAN_LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcmocka -lzstd

# ---- samples: plain programs, -O1 so loops stay loops ---------------------
$(BUILD)/samples/%: samples/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -g $(WARN) -pthread -o $@ $<

# Figure 5.6's program is sliced by source line: -O0 keeps one line's code together.
$(BUILD)/samples/slice_fig56: samples/slice_fig56.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O0 -g $(WARN) -o $@ $<

# trace-slice disassembles with capstone and reads module files with libelf.
SLICE_LIBS := -lcapstone -lelf
$(BUILD)/bin/trace-slice $(BUILD)/asan/bin/trace-slice: LDLIBS += $(SLICE_LIBS)
$(patsubst tests/unit/%.c,$(BUILD)/asan/tests/%,$(wildcard tests/unit/test_slice*.c)): LDLIBS += $(SLICE_LIBS)

# ---- benchmarks and fuzzers ------------------------------------------------
$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIBTOOLS) $(LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

FUZZFLAGS := -fsanitize=fuzzer,address,undefined -g -O1 $(CPPFLAGS)
# Fuzz targets exercise the trace parser, so they link the format library alone.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FORMAT_SRC)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZFLAGS) -o $@ $^ -lzstd
# The stored-grammar target links the algorithms (and the one base file they use).
$(BUILD)/fuzz/fuzz_sequitur: tests/fuzz/fuzz_sequitur.c $(wildcard tools/lib/algo/*.c) tools/lib/base/array.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZFLAGS) -o $@ $^ -lzstd

# The .twpp reader links the TWPP folder (not its SQL), the base files it uses and the format library.
$(BUILD)/fuzz/fuzz_twpp: tests/fuzz/fuzz_twpp.c $(filter-out %/store.c,$(wildcard tools/lib/twpp/*.c)) tools/lib/base/array.c \
		tools/lib/algo/sequitur.c tools/lib/algo/sq_grammar.c tools/lib/stream/access.c tools/lib/stream/insns.c \
		tools/lib/base/u64map.c tools/lib/base/shadowmap.c tools/lib/base/symbolize.c $(FORMAT_SRC)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZFLAGS) -o $@ $^ -lzstd

# ---- the Valgrind tool -----------------------------------------------------
include recorder/recorder.mk

# ---- top-level jobs ----------------------------------------------------------
test: deps
	$(MAKE) -j$$(nproc) all $(ASANCMDS) $(TESTS)
	MEMREC_BUILD=$(BUILD) tests/run.sh

bench: deps
	$(MAKE) all $(BENCHES)
	@for s in bench/*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; MEMREC_BUILD=$(BUILD) bash "$$s" || exit 1; done

demo: deps
	$(MAKE) all
	MEMREC_BUILD=$(BUILD) scripts/demo.sh

fuzz: deps
	$(MAKE) $(FUZZERS)
	@for f in $(FUZZERS); do n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  seeds=tests/fuzz/corpus/$$n; [ -d $$seeds ] || seeds=; \
	  echo "== $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	      $(BUILD)/fuzz/corpus-$$n $$seeds 2>&1 | tail -n 12 || exit 1; done

install: all install-recorder
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/memrec
	install -m 755 $(CMDS) $(DESTDIR)$(PREFIX)/bin/
	cp -r sql plots $(DESTDIR)$(PREFIX)/share/memrec/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
