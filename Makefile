# Makefile - builds lib/libnvidia-ml.so.1 (the mock NVML), mokka (the CLI)
# and the tests.
#
#   make                 library + CLI
#   make test            install missing dependencies, build, run every test
#   make asan | tsan     the suite under ASan+UBSan / the concurrency tests under TSan
#   make fuzz            every fuzz target for FUZZ_SECONDS (60) each, built by clang
#                        in build-fuzz/ (FUZZ_TARGETS="units suite": only those)
#   make bench           speed and memory numbers
#   make demo            mokka run on the built-in defaults
#   make install         PREFIX=/usr/local LIBDIR=$(PREFIX)/lib/mokka DESTDIR=
#   make dist            release archives in dist/ (ci/dist.sh; DIST_ARCHES="amd64 arm64")
#   make deb             the Debian package in dist/ (ci/deb.sh, packaging in ci/debian/)
#   make image           the images mokka-device-plugin and mokka in dist/ (ci/image.sh;
#                        PLUGIN_amd64=, PLUGIN_arm64= or PLUGIN=: NVIDIA's device plugin;
#                        GFD_amd64=, GFD_arm64= or GFD=: its gpu-feature-discovery)
#   make O=/tmp/b ...    out-of-tree build
#
# Sources are found by directory, so a new file needs no edit here:
#   lib/core/*.c   shared core (config, universe, live state) -> libmokkacore.a
#   lib/core/gen_*.c  build tools that generate sources         -> build/tools/
#   lib/nvml/*.c   NVML entry points                           -> libnvidia-ml.so.1
#   src/*.c src/cmd/*.c src/ENGINE/*.c                          -> mokka
#   src/ENGINE/*.c        the engines, for tests and stand-ins  -> libmokkaengine.a
#   tests/unit/FOLDER/test_*.c  one Check binary each (FOLDER as in src/ or lib/)
#   tests/unit/support/*.c  test doubles shared by the unit tests -> libmokkatest.a
#   tests/standins/NAME.c or tests/standins/NAME/*.c  one stand-in program each
#                         (device plugin, kube-watch)
#   tests/bench/*.c       one benchmark program each
#   tests/fuzz/FOLDER/NAME.c  one libFuzzer target each (FOLDER as in tests/unit/),
#                         also linked with tests/fuzz/replay.c as a test binary

MOKKA_VERSION := 0.1.0
O       ?= .
B       := $(O)/build
CC      ?= cc
PYTHON  ?= python3
OBJCOPY ?= objcopy
PREFIX  ?= /usr/local
# where make install puts the library; mokka looks there (src/bundle/libpath.c)
LIBDIR  ?= $(PREFIX)/lib/mokka
DESTDIR ?=
SAN     ?=

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

PKGS_LIB := yaml-0.1
PKGS_CLI := yaml-0.1 jansson libcurl grpc libprotobuf-c
pkgcflags = $(shell pkg-config --cflags $(1) 2>/dev/null)
pkglibs   = $(shell pkg-config --libs $(1) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  ?=
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) $(OPT) \
               -ffile-prefix-map=$(CURDIR)=. -Ilib/core -Ilib/nvml -Isrc -I$(B)/gen \
               -DMOKKA_VERSION='"$(MOKKA_VERSION)"' -DMOKKA_COMMIT='"$(GIT_COMMIT)"'
ifeq ($(SAN),asan)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
ifeq ($(SAN),tsan)
SAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
endif
# Objects for libFuzzer (clang): coverage and comparisons traced, ASan+UBSan.
ifeq ($(SAN),fuzz)
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
             -fno-omit-frame-pointer
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
LDFLAGS ?=
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)
# Every symbol of the library resolved at link time; not with a sanitizer,
# whose runtime the host program brings (clang links none into a library).
ZDEFS := $(if $(SAN),,-Wl,-z,defs)

CORE_SRC := $(filter-out lib/core/gen_%.c,$(sort $(wildcard lib/core/*.c)))
NVML_SRC := $(sort $(wildcard lib/nvml/*.c))
ENGINE_SRC := $(filter-out src/cmd/%,$(sort $(wildcard src/*/*.c)))
CLI_SRC  := $(sort $(wildcard src/*.c src/cmd/*.c)) $(ENGINE_SRC)
PROTOS   := $(sort $(wildcard src/deviceplugin/proto/*.proto))
UNIT_SRC := $(sort $(wildcard tests/unit/*/test_*.c))
TSUPPORT_SRC := $(sort $(wildcard tests/unit/support/*.c))
STANDIN_NAMES := $(sort $(basename $(notdir $(wildcard tests/standins/*.c))) \
                        $(notdir $(patsubst %/,%,$(dir $(wildcard tests/standins/*/*.c)))))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*/*.c))
FUZZ_NAMES := $(basename $(notdir $(FUZZ_SRC)))
PROFILES := $(sort $(wildcard fixtures/profiles/*.yaml))
# the suites mokka carries: cluster mode's default (run's own default is
# written for its universe, src/run/smoke.c)
SUITES   := fixtures/suites/cluster-smoke.yaml

obj = $(patsubst %.c,$(B)/%.o,$(1))
# The object of unit test NAME, wherever under tests/unit/ it lives.
unit_obj = $(call obj,$(filter %/$(1).c,$(UNIT_SRC)))
fuzz_obj = $(call obj,$(filter %/$(1).c,$(FUZZ_SRC)))
PROTO_C  := $(patsubst src/deviceplugin/proto/%.proto,$(B)/gen/%.pb-c.c,$(PROTOS))
PROTO_O  := $(PROTO_C:.c=.o)
GEN_O    := $(B)/gen/profiles.o
CORE_O   := $(call obj,$(CORE_SRC)) $(GEN_O)
NVML_O   := $(call obj,$(NVML_SRC)) $(B)/gen/nvml_stubs.o
CLI_O    := $(call obj,$(CLI_SRC)) $(PROTO_O) $(B)/gen/libblob.o $(B)/gen/suites.o
ENGINE_O := $(call obj,$(ENGINE_SRC)) $(PROTO_O)
TSUPPORT_O := $(call obj,$(TSUPPORT_SRC))

LIBNVML  := $(O)/lib/libnvidia-ml.so.1
CORE_A   := $(B)/libmokkacore.a
ENGINE_A := $(B)/libmokkaengine.a
NVML_A   := $(B)/libmokkanvml.a
TSUPPORT_A := $(B)/libmokkatest.a
MOKKA    := $(O)/mokka
# the nvidia-smi twin for containers (src/smi/twin/, beside the library)
SMI_TWIN := $(O)/lib/nvidia-smi
SMI_TWIN_O := $(call obj,src/smi/twin/nvidia_smi.c $(sort $(wildcard src/smi/*.c)))
# the container runtime shim for the nodes' containerd (src/cmd/shim/)
CTR_SHIM := $(O)/lib/mokka-container-runtime
UNIT_BIN := $(patsubst %,$(B)/tests/%,$(basename $(notdir $(UNIT_SRC))))
STANDIN_BIN := $(patsubst %,$(B)/tests/%,$(STANDIN_NAMES))
BENCH_BIN := $(patsubst tests/bench/%.c,$(B)/tests/%,$(BENCH_SRC))
FUZZ_BIN := $(patsubst %,$(B)/fuzz/%,$(FUZZ_NAMES))
REPLAY_BIN := $(patsubst %,$(B)/tests/replay-%,$(FUZZ_NAMES))

.PHONY: all lib cli twin test check testbins asan tsan fuzz fuzzers bench demo install dist deb image clean deps
.DELETE_ON_ERROR:

all: lib cli twin
lib: $(LIBNVML)
cli: $(MOKKA)
twin: $(SMI_TWIN) $(CTR_SHIM)

# --- generated sources -------------------------------------------------------
# The GPU profiles and the built-in universe's config, parsed here once by
# the loader users' configs go through, so that nvmlInit never runs libyaml
# over them (and without a config, never runs it at all).
DEFAULT_CONFIG := fixtures/configs/dgx-a100.yaml
# The tool runs where the build runs: a cross build (make CC=aarch64-linux-gnu-gcc,
# as ci/dist.sh does) compiles it with BUILD_CC into $(B)/host.
BUILD_CC ?= $(CC)
TOOL_SRC := lib/core/gen_profiles.c lib/core/ytree.c lib/core/yload.c lib/core/diag.c lib/core/ids.c
ifeq ($(BUILD_CC),$(CC))
$(B)/tools/gen_profiles: $(call obj,$(TOOL_SRC))
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_LIB))
else
$(B)/tools/gen_profiles: $(patsubst %.c,$(B)/host/%.o,$(TOOL_SRC))
	@mkdir -p $(@D)
	$(BUILD_CC) -o $@ $^ $(call pkglibs,$(PKGS_LIB))

$(B)/host/%.o: %.c
	@mkdir -p $(@D)
	$(BUILD_CC) $(BASE_CFLAGS) $(call pkgcflags,$(PKGS_LIB)) -MMD -MP -c -o $@ $<
endif

$(B)/gen/profiles.c: $(B)/tools/gen_profiles $(DEFAULT_CONFIG) $(PROFILES)
	@mkdir -p $(@D)
	$(B)/tools/gen_profiles --default $(DEFAULT_CONFIG) $(PROFILES) > $@.tmp && mv $@.tmp $@

$(B)/gen/suites.c: src/suite/gen_embed.sh $(SUITES)
	@mkdir -p $(@D)
	sh src/suite/gen_embed.sh mk_suite_blobs $(SUITES) > $@.tmp && mv $@.tmp $@

$(B)/gen/nvml_stubs.c $(B)/gen/fntable.h $(B)/gen/exports.map &: lib/nvml/gen_stubs.sh lib/nvml/exports.list lib/nvml/stubs.list $(wildcard lib/nvml/abi/*.h)
	@mkdir -p $(B)/gen
	sh lib/nvml/gen_stubs.sh lib/nvml/exports.list lib/nvml/stubs.list lib/nvml/abi $(B)/gen

# protoc-c names a service method's function slot after the method, in lower
# case: Registration's Register becomes the C keyword `register`.
$(B)/gen/%.pb-c.c $(B)/gen/%.pb-c.h &: src/deviceplugin/proto/%.proto
	@mkdir -p $(B)/gen
	protoc-c --proto_path=src/deviceplugin/proto --c_out=$(B)/gen $<
	sed -i 's/(\*register)(/(*register_)(/' $(B)/gen/$*.pb-c.h

# Keep every intermediate file (objects of tests, generated sources): make
# would otherwise delete them and rebuild them on every run.
.SECONDARY:

$(B)/gen/libblob.S: $(LIBNVML)
	@mkdir -p $(@D)
	printf '\t.section .rodata\n\t.global mk_libblob\n\t.global mk_libblob_end\n\t.balign 64\nmk_libblob:\n\t.incbin "%s"\nmk_libblob_end:\n\t.section .note.GNU-stack,"",@progbits\n' '$(abspath $(LIBNVML))' > $@

$(B)/gen/libblob.o: $(B)/gen/libblob.S
	$(CC) -c -o $@ $<

# --- objects -----------------------------------------------------------------
$(B)/lib/core/%.o: lib/core/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(call pkgcflags,$(PKGS_LIB)) -MMD -MP -c -o $@ $<

$(B)/lib/nvml/%.o: lib/nvml/%.c | $(B)/gen/fntable.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(call pkgcflags,$(PKGS_LIB)) -MMD -MP -c -o $@ $<

$(B)/src/%.o: src/%.c $(PROTO_C) | $(B)/gen/fntable.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(call pkgcflags,$(PKGS_CLI)) -MMD -MP -c -o $@ $<

$(B)/src/bundle/libpath.o: ALL_CFLAGS += -DMOKKA_LIBDIR='"$(LIBDIR)"'

$(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes $(call pkgcflags,$(PKGS_CLI)) -c -o $@ $<

$(B)/tests/%.o: tests/%.c $(PROTO_C) | $(B)/gen/fntable.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Itests/unit $(call pkgcflags,$(PKGS_CLI) check) -MMD -MP -c -o $@ $<

# --- artifacts ---------------------------------------------------------------
$(CORE_A): $(CORE_O)
	@rm -f $@
	ar rcsD $@ $^

# The engines (kube client, node view, suites, ...) for tests and stand-ins
# to link: an archive, so that each program takes only the objects it uses.
$(ENGINE_A): $(ENGINE_O)
	@rm -f $@
	ar rcsD $@ $^

$(TSUPPORT_A): $(TSUPPORT_O)
	@rm -f $@
	ar rcsD $@ $^

# The NVML entry points for programs that call them directly rather than
# through the library (the config fuzz target).
$(NVML_A): $(NVML_O)
	@rm -f $@
	ar rcsD $@ $^

# The library lives in other people's processes and travels inside mokka:
# its debug information and local symbols go to libnvidia-ml.so.1.debug
# beside it (gdb and the symbolizers follow the debug link), a third of the
# size stays; what remains is stripped as Debian's packages want it. A
# sanitizer build keeps it inline.
$(LIBNVML): $(NVML_O) $(CORE_A) $(B)/gen/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@.full $(NVML_O) $(CORE_A) -Wl,-soname,libnvidia-ml.so.1 \
	    -Wl,--version-script=$(B)/gen/exports.map $(ZDEFS) -Wl,--build-id=none \
	    $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_LIB)) -lpthread
ifeq ($(SAN),)
	$(OBJCOPY) --only-keep-debug $@.full $@.debug
	$(OBJCOPY) --strip-unneeded --add-gnu-debuglink=$@.debug $@.full $@.tmp
	rm -f $@.full
	mv $@.tmp $@
else
	mv $@.full $@
endif

$(MOKKA): $(CLI_O) $(CORE_A)
	$(CC) -o $@ $(CLI_O) $(CORE_A) $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_CLI)) -ldl -lpthread -lm

# jansson linked in: an image has the C library, rarely jansson.
$(SMI_TWIN): $(SMI_TWIN_O)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) -Wl,-Bstatic -ljansson -Wl,-Bdynamic -ldl

# jansson and libyaml linked in: a node has the C library, rarely those.
$(CTR_SHIM): $(B)/src/cmd/shim/container_runtime_main.o $(B)/src/cmd/container_runtime.o $(B)/gen/libblob.o \
             $(ENGINE_A) $(CORE_A)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) -Wl,-Bstatic -ljansson -lyaml -Wl,-Bdynamic -ldl -lpthread

.SECONDEXPANSION:
$(UNIT_BIN): $(B)/tests/%: $$(call unit_obj,$$*) $(TSUPPORT_A) $(ENGINE_A) $(CORE_A)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,check $(PKGS_CLI)) -ldl -lpthread -lm

$(STANDIN_BIN): $(B)/tests/%: $$(call obj,$$(wildcard tests/standins/$$*.c tests/standins/$$*/*.c)) $(ENGINE_A) $(CORE_A)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_CLI)) -ldl -lpthread -lm

# Benchmarks dlopen the library like a client; the core archive only lends
# the state-file writer that stands in for `mokka inject` (bench_events).
$(B)/tests/bench_%: $(B)/tests/bench/bench_%.o $(CORE_A)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) -ldl -lpthread -lm

# bench_run drives the device plugin through the engines of `mokka run`.
$(B)/tests/bench_run: $(B)/tests/bench/bench_run.o $(ENGINE_A) $(CORE_A)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_CLI)) -ldl -lpthread -lm

# A fuzz target links what it drives from the archives: with libFuzzer's
# main in build-fuzz/ (SAN=fuzz), with replay.c's as a test binary.
FUZZ_LIBS = $(NVML_A) $(ENGINE_A) $(CORE_A)
$(FUZZ_BIN): $(B)/fuzz/%: $$(call fuzz_obj,$$*) $(FUZZ_LIBS)
	@mkdir -p $(@D)
	$(CC) -fsanitize=fuzzer -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_CLI)) -ldl -lpthread -lm

$(REPLAY_BIN): $(B)/tests/replay-%: $$(call fuzz_obj,$$*) $(B)/tests/fuzz/replay.o $(FUZZ_LIBS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(call pkglibs,$(PKGS_CLI)) -ldl -lpthread -lm

testbins: all $(UNIT_BIN) $(STANDIN_BIN) $(BENCH_BIN) $(REPLAY_BIN)
fuzzers: $(FUZZ_BIN)

# --- running -----------------------------------------------------------------
deps:
	sh ci/deps.sh

test check:
	sh ci/deps.sh --quiet
	$(MAKE) testbins
	MOKKA_BUILD=$(abspath $(O)) MOKKA_SAN=$(SAN) sh tests/run.sh

asan:
	$(MAKE) O=$(O)/build-asan SAN=asan test

tsan:
	sh ci/deps.sh --quiet
	$(MAKE) O=$(O)/build-tsan SAN=tsan testbins
	MOKKA_BUILD=$(abspath $(O)/build-tsan) MOKKA_SAN=tsan sh tests/run.sh --concurrency

# Each target in turn for FUZZ_SECONDS, from seeds assembled out of
# fixtures/ and the tests (tests/fuzz/seeds.py); fails on any crash,
# sanitizer report, input slower than 1 s or RSS over 512 MiB.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_CC ?= clang
fuzz:
	sh ci/deps.sh --quiet
	$(MAKE) O=$(O)/build-fuzz SAN=fuzz CC=$(FUZZ_CC) fuzzers
	sh tests/fuzz/run.sh $(abspath $(O)/build-fuzz) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: all $(BENCH_BIN) $(B)/tests/kube-watch $(B)/tests/fake-device-plugin $(B)/tests/fake-gfd
	MOKKA_BUILD=$(abspath $(O)) MOKKA_BENCH_CC='$(CC)' MOKKA_BENCH_CFLAGS='$(OPT) $(SAN_FLAGS) $(CFLAGS)' \
	    sh tests/bench/run.sh

# The built-in universe and smoke suite, with the stand-in device plugin (or
# NVIDIA's: make demo PLUGIN=/path/to/nvidia-device-plugin).
PLUGIN ?= $(B)/tests/fake-device-plugin
demo:
	sh ci/deps.sh --quiet
	$(MAKE) all $(B)/tests/fake-device-plugin
	$(MOKKA) run --plugin $(PLUGIN) --junit $(O)/mokka-demo.xml

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/mokka \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(MOKKA) $(DESTDIR)$(PREFIX)/bin/mokka
	install -m 644 $(LIBNVML) $(DESTDIR)$(LIBDIR)/libnvidia-ml.so.1
	install -m 755 $(SMI_TWIN) $(CTR_SHIM) $(DESTDIR)$(LIBDIR)/
	install -m 644 src/mokka.1 $(DESTDIR)$(PREFIX)/share/man/man1/mokka.1
	install -m 644 completions/mokka.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mokka
	install -m 644 completions/_mokka $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_mokka
	install -m 644 completions/mokka.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/mokka.fish
	cp -R fixtures/profiles fixtures/configs fixtures/suites fixtures/plugins $(DESTDIR)$(PREFIX)/share/mokka/

# Release archives and the Debian package, built from the sources in trees
# of their own (build-dist/, build-deb/) into dist/, with dist/SHA256SUMS.
DIST_ARCHES ?= amd64 arm64
dist:
	sh ci/dist.sh $(MOKKA_VERSION) $(DIST_ARCHES)

# The images, from the archives (built first) and Debian's packages (mmdebstrap): docker-archive
# tarballs in dist/ for IMAGE_ARCHES. PLUGIN only when given (demo's default is
# the stand-in).
IMAGE_ARCHES ?= $(DIST_ARCHES)
image:
	PLUGIN='$(if $(filter command line environment,$(origin PLUGIN)),$(PLUGIN))' \
	    sh ci/image.sh $(MOKKA_VERSION) $(IMAGE_ARCHES)

DEB_ARCH ?= $(shell dpkg --print-architecture 2>/dev/null)
deb:
	sh ci/deb.sh $(MOKKA_VERSION) $(DEB_ARCH)

clean:
	rm -rf $(B) $(LIBNVML) $(LIBNVML).debug $(SMI_TWIN) $(CTR_SHIM) $(MOKKA) $(O)/build-asan $(O)/build-tsan \
	    $(O)/build-fuzz $(O)/mokka-demo.xml build-dist build-deb build-image dist

-include $(shell find $(B) -name '*.d' 2>/dev/null)
