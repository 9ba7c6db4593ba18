# chipsim -- one GNU Makefile; sources are found by wildcard.
#
#   make         build bin/chipsim
#   make run     build and run the main job: the CPElide study, 4-chiplet slice
#   make test    build and run the unit tests, then the same tests under ASan+UBSan,
#                then the Slurm backend against a one-node Slurm cluster (tests/slurm/)
#   make validate  compare kernel cycles and cache counts with the references in
#                ../shared/validation (Accel-Sim, real GPUs): docs/validation.md
#   make bench   build and run the speed benchmarks in bench/
#   make fuzz    build the libFuzzer harnesses (clang) and run each for FUZZ_TIME seconds
#
# Two build flavours share every source: build/rel (optimised) and build/san
# (sanitizers). Missing Debian packages are installed by scripts/install-deps.sh.

CC      ?= gcc
PKGS    := inih jansson sqlite3 liblzma
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
BASE    := -std=c11 -D_GNU_SOURCE -Isrc -MMD -MP $(WARN)
REL     := -O2 -g
SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

SRC     := $(wildcard src/*/*.c src/*/*/*.c src/*/*/*/*.c)
MAIN    := src/cli/main.c
LIBSRC  := $(filter-out $(MAIN),$(SRC))
TESTSRC := $(wildcard tests/unit/*.c)
BENCHSRC:= $(wildcard bench/*.c)
BENCHTRACE := bench/trace/bench_trace.c

obj      = $(patsubst %.c,build/$(1)/%.o,$(2))
LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -linih -ljansson -lsqlite3 -llzma) -lcsv -lm
TESTLIBS = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

.PHONY: all run test test-rel test-san test-slurm validate bench deps deps-fuzz fuzz clean
all: bin/chipsim

deps:
	@bash scripts/install-deps.sh --if-missing

deps-fuzz:
	@bash scripts/install-deps.sh --if-missing --fuzz

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(REL) $(CFLAGS) -c $< -o $@

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) $(CFLAGS) -c $< -o $@

bin/chipsim: $(call obj,rel,$(SRC))
	@mkdir -p bin
	$(CC) $(REL) $(LDFLAGS) -o $@ $^ $(LIBS)

build/san/chipsim: $(call obj,san,$(SRC))
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(LIBS)

build/rel/unit-tests: $(call obj,rel,$(LIBSRC) $(TESTSRC))
	$(CC) $(REL) $(LDFLAGS) -o $@ $^ $(LIBS) $(TESTLIBS)

build/san/unit-tests: $(call obj,san,$(LIBSRC) $(TESTSRC))
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(LIBS) $(TESTLIBS)

build/rel/bench-core: $(call obj,rel,$(LIBSRC) $(BENCHSRC))
	$(CC) $(REL) $(LDFLAGS) -o $@ $^ $(LIBS)

build/rel/bench-trace: $(call obj,rel,$(LIBSRC) $(BENCHTRACE))
	$(CC) $(REL) $(LDFLAGS) -o $@ $^ $(LIBS)

# The generated traces of the trace benchmark: 460 MB (and its .xz) and a
# quarter of it (same blocks, a quarter as many), to show memory does not follow size.
build/bench/gen/kernel-1.traceg:
	python3 tools/gen_trace.py build/bench/gen --xz

build/bench/gen-quarter/kernel-1.traceg:
	python3 tools/gen_trace.py build/bench/gen-quarter --blocks 1024

# The synthetic traces of the validation references, whose Accel-Sim run times
# the trace benchmark compares against (bench/trace/bench_trace.c).
VALGEN := ../shared/validation/gen-synth-trace.py
build/bench/scale-1m/kernelslist.g:
	python3 $(VALGEN) build/bench/scale-1m scale --n 1048576 > /dev/null

build/bench/stencil-1k/kernelslist.g:
	python3 $(VALGEN) build/bench/stencil-1k stencil2d --nx 1024 --ny 1024 > /dev/null

run: deps
	@$(MAKE) --no-print-directory bin/chipsim
	bin/chipsim study cpelide --quick

test: deps
	@$(MAKE) --no-print-directory bin/chipsim build/san/chipsim build/rel/unit-tests build/san/unit-tests
	@$(MAKE) --no-print-directory test-rel test-san
	@$(MAKE) --no-print-directory test-slurm

test-rel:
	@echo "== unit tests (optimised build) =="
	CHIPSIM_BIN=bin/chipsim build/rel/unit-tests --jobs 2

test-san:
	@echo "== unit tests (ASan+UBSan build) =="
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	CHIPSIM_BIN=build/san/chipsim build/san/unit-tests --jobs 2

# Starts munged, slurmctld and slurmd on this machine (installing Debian's slurm-wlm and munge
# when missing), runs sweeps through them, and shuts them down again.
test-slurm: bin/chipsim
	@echo "== the Slurm backend (one-node Slurm cluster on this machine) =="
	CHIPSIM_BIN=bin/chipsim bash tests/slurm/run.sh

# Fuzzing (tests/fuzz/README.md): clang's libFuzzer with ASan+UBSan; the
# harnesses' seed corpora are read from tests/fuzz/corpus/, new inputs are
# kept in build/fuzz/corpus-*/.
FUZZCC    ?= clang
FUZZ      := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TIME ?= 60
FUZZERS   := trace ini

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZCC) $(BASE) $(FUZZ) -fsanitize=fuzzer-no-link $(CFLAGS) -c $< -o $@

build/fuzz/fuzz-%: $(call obj,fuzz,$(LIBSRC)) build/fuzz/tests/fuzz/fuzz_%.o
	$(FUZZCC) $(FUZZ) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(LIBS)

fuzz: deps-fuzz
	@$(MAKE) --no-print-directory $(addprefix build/fuzz/fuzz-,$(FUZZERS))
	@for f in $(FUZZERS); do \
	    mkdir -p build/fuzz/corpus-$$f; \
	    echo "== fuzz-$$f for $(FUZZ_TIME) s =="; \
	    build/fuzz/fuzz-$$f -max_total_time=$(FUZZ_TIME) -max_len=16384 \
	        build/fuzz/corpus-$$f tests/fuzz/corpus/$$f || exit 1; \
	done

validate: deps
	@$(MAKE) --no-print-directory bin/chipsim
	bin/chipsim validate

bench: deps
	@$(MAKE) --no-print-directory bin/chipsim build/rel/bench-core build/rel/bench-trace \
	    build/bench/gen/kernel-1.traceg build/bench/gen-quarter/kernel-1.traceg \
	    build/bench/scale-1m/kernelslist.g build/bench/stencil-1k/kernelslist.g
	build/rel/bench-core
	build/rel/bench-trace

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
