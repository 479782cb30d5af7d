# vncl: plain Make. Targets: all (default), check, demo, deps, install,
# uninstall, clean, checksymbols, checkldd, check-asan, check-oclgrind.
.SUFFIXES:

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
PCDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/vncl

VERSION_MAJOR := $(shell sed -n 's/^\#define VNCL_VERSION_MAJOR \([0-9]*\).*/\1/p' include/vncl_version.h)
VERSION_MINOR := $(shell sed -n 's/^\#define VNCL_VERSION_MINOR \([0-9]*\).*/\1/p' include/vncl_version.h)
VERSION_PATCH := $(shell sed -n 's/^\#define VNCL_VERSION_PATCH \([0-9]*\).*/\1/p' include/vncl_version.h)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

B ?= build
ifeq ($(origin CC),default)
CC = cc
endif
OPT ?= -O2 -g
WERROR ?=
SAN ?=
DEFS ?=
CFLAGS_BASE = -std=c11 $(OPT) -Wall -Wextra -Wstrict-prototypes \
  -Werror=implicit-function-declaration $(WERROR) $(SAN) $(DEFS) \
  -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
  -Iinclude
# lib/'s private headers: for the library, and for the tests, fuzzers and
# the fault walk that test an internal on purpose. tools/ and bench/ see
# include/ only.
INTERNAL_CFLAGS = $(CFLAGS_BASE) -Ilib
LIB_CFLAGS = $(INTERNAL_CFLAGS) -fPIC -fvisibility=hidden
LIBS = -lOpenCL -lclblast -lclFFT -lcjson -lpthread -lm
# The peers vncl-bench measures against (the vncl command links none).
PEER_LIBS = -lopenblas -lfftw3f_threads -lfftw3_threads -lfftw3f -lfftw3
TEST_LIBS = -lcmocka -lcjson -lopenblas -lfftw3 -lfftw3f $(LIBS)

LIB_SRC := $(sort $(wildcard lib/*/*.c))
LIB_OBJ := $(patsubst lib/%.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/kernels_gen.o
CL_SRC := $(sort $(wildcard cl_kernels/*.cl))
HDRS := $(wildcard include/*.h) $(wildcard lib/*/*.h)
# The applications' objects (tools/, bench/) go under $(B)/app, apart from
# lib/'s layers under $(B)/obj, which scripts/check-layers.sh reads.
TOOL_SRC := $(sort $(wildcard tools/*.c tools/*/*.c))
TOOL_OBJ := $(patsubst tools/%.c,$(B)/app/tools/%.o,$(TOOL_SRC))
TOOL_HDRS := $(wildcard tools/*.h tools/*/*.h)
TEST_SRC := $(sort $(wildcard test/test_*.c))
TEST_BIN := $(patsubst test/%.c,$(B)/test/%,$(TEST_SRC))
TEST_COMMON := $(sort $(wildcard test/common*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_OBJ := $(patsubst bench/%.c,$(B)/app/bench/%.o,$(BENCH_SRC))
# What vncl-bench shares with the vncl command (option parsing, JSON forms)
# and with the tests (the host reference GEMM: test/common_ref.c, plain C).
BENCH_TOOL_OBJ := $(B)/app/tools/cli_common.o $(B)/app/tools/cli_opts.o \
  $(B)/app/test/common_ref.o

SONAME = libvncl.so.$(VERSION_MAJOR)

all: $(B)/libvncl.so $(B)/libvncl.a $(B)/vncl $(B)/vncl-bench $(B)/vncl.pc \
  $(B)/blas/libblas.so.3

$(B)/obj/%.o: lib/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/kernels_gen.c: $(CL_SRC) scripts/embed-kernels.sh
	@mkdir -p $(@D)
	sh scripts/embed-kernels.sh $@ $(CL_SRC)

$(B)/obj/kernels_gen.o: $(B)/kernels_gen.c lib/runtime/runtime.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/libvncl.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(B)/libvncl.so.$(VERSION): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(SAN) -o $@ $(LIB_OBJ) $(LIBS)

$(B)/libvncl.so: $(B)/libvncl.so.$(VERSION)
	ln -sf libvncl.so.$(VERSION) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

# The vncl command (tools/) and the benchmark program it runs for `vncl
# bench` (bench/): applications over include/ only. vncl-bench links the
# peers; vncl links only what the library needs (make checkldd).
TOOL_CFLAGS = $(CFLAGS_BASE) -Itools

$(B)/app/tools/%.o: tools/%.c $(TOOL_HDRS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -c $< -o $@

# The commit the bench's JSON names: $(B)/git-head changes only when HEAD
# does (or the tree turns dirty or clean), and bench_main.o, which embeds
# it, is rebuilt then.
GIT_HEAD = $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
$(B)/git-head: FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_HEAD)' | cmp -s - $@ || echo '$(GIT_HEAD)' > $@
FORCE:
$(B)/app/bench/bench_main.o: $(B)/git-head

$(B)/app/bench/%.o: bench/%.c bench/bench.h test/common_ref.h $(TOOL_HDRS) \
  $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ibench -Itest \
	  -DVNCL_GIT_COMMIT='"$(shell cat $(B)/git-head 2>/dev/null || echo unknown)"' \
	  -c $< -o $@

$(B)/app/test/common_ref.o: test/common_ref.c test/common_ref.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -c $< -o $@

$(B)/vncl: $(TOOL_OBJ) $(B)/libvncl.a
	$(CC) $(SAN) -o $@ $(TOOL_OBJ) $(B)/libvncl.a $(LIBS)

$(B)/vncl-bench: $(BENCH_OBJ) $(BENCH_TOOL_OBJ) $(B)/libvncl.a
	$(CC) $(SAN) -o $@ $(BENCH_OBJ) $(BENCH_TOOL_OBJ) $(B)/libvncl.a \
	  $(LIBS) $(PEER_LIBS)

$(B)/vncl.pc: vncl.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

$(B)/test/%: test/%.c $(TEST_COMMON) $(wildcard test/*.h) \
  $(B)/libvncl.a $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(INTERNAL_CFLAGS) -Itest -I$(B)/test -o $@ $< $(TEST_EXTRA) \
	  $(TEST_COMMON) $(B)/libvncl.a $(TEST_LIBS)

# test_tuning checks `vncl autotune` (tools/autotune/: the search, its
# worker and runner, over the public API) and `--show`, a report of tools/
# over the public API.
AUTOTUNE_SRC := $(sort $(wildcard tools/autotune/*.c))
$(B)/test/test_tuning: TEST_EXTRA = tools/tuning_show.c $(AUTOTUNE_SRC)
$(B)/test/test_tuning: tools/tuning_show.c tools/tuning_show.h \
  $(AUTOTUNE_SRC) tools/autotune/autotune.h
# test_trust checks that `vncl autotune` refuses a folder others may write.
$(B)/test/test_trust: TEST_EXTRA = $(AUTOTUNE_SRC)
$(B)/test/test_trust: $(AUTOTUNE_SRC) tools/autotune/autotune.h

# test_bench_gate checks the bench's gates (bench/bench_gate.c, plain C).
$(B)/test/test_bench_gate: TEST_EXTRA = -Ibench bench/bench_gate.c
$(B)/test/test_bench_gate: bench/bench_gate.c bench/bench.h

# The environment variables the sources read (scripts/env-names.sh), for
# test_cli's check that `vncl --help` lists each one; and the commands it
# runs.
$(B)/test/env_names.h: scripts/env-names.sh $(LIB_SRC) $(TOOL_SRC) \
  $(BENCH_SRC) $(wildcard blas/*.c) $(wildcard include/*.h)
	@mkdir -p $(@D)
	sh scripts/env-names.sh lib tools bench blas > $@.tmp && mv $@.tmp $@
$(B)/test/test_cli: $(B)/test/env_names.h $(B)/vncl $(B)/vncl-bench

# Fake vendor telemetry libraries (NVML, ROCm SMI, Level Zero) that
# test_telemetry loads through VNCL_*_LIBRARY; plain shared objects, linked
# against nothing of ours.
FAKE_LIBS := $(patsubst test/fake_%.c,$(B)/test/libfake_%.so,\
  $(sort $(wildcard test/fake_*.c)))
$(B)/test/libfake_%.so: test/fake_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -fPIC -shared -o $@ $<
$(B)/test/test_telemetry: $(FAKE_LIBS)

# ---- The drop-in BLAS (blas/): build/blas/libblas.so.3, soname
# libblas.so.3, a client of the public API linked with libvncl.a, exporting
# only the reference BLAS and CBLAS names (the version script generated
# with the forwarding layer from blas/blas.sigs). docs/blas.md.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || \
  dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
BLAS_GEN = $(B)/obj/blas-gen
BLAS_SRC := $(sort $(wildcard blas/*.c))
BLAS_OBJ := $(patsubst blas/%.c,$(B)/obj/blas/%.o,$(BLAS_SRC)) \
  $(B)/obj/blas/blas_gen.o
BLAS_HDRS := $(wildcard blas/*.h) $(BLAS_GEN)/blas_gen.h
BLAS_CFLAGS = $(LIB_CFLAGS) -D_GNU_SOURCE -Iblas -I$(BLAS_GEN) \
  -DVB_MULTIARCH='"$(MULTIARCH)"'

# One run makes all three (a grouped target: under -j a plain rule with
# three targets ran the script twice at once, and the runs' renames raced).
$(BLAS_GEN)/blas_gen.h $(BLAS_GEN)/blas_gen.c $(BLAS_GEN)/blas.map &: \
  blas/blas.sigs scripts/gen-blas.sh
	sh scripts/gen-blas.sh blas/blas.sigs $(BLAS_GEN)

$(B)/obj/blas/%.o: blas/%.c $(BLAS_HDRS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(BLAS_CFLAGS) -c $< -o $@

$(B)/obj/blas/blas_gen.o: $(BLAS_GEN)/blas_gen.c $(BLAS_HDRS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(BLAS_CFLAGS) -c $< -o $@

$(B)/blas/libblas.so.3: $(BLAS_OBJ) $(BLAS_GEN)/blas.map $(B)/libvncl.a
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libblas.so.3 -Wl,-z,defs \
	  -Wl,--version-script=$(BLAS_GEN)/blas.map $(SAN) -o $@ $(BLAS_OBJ) \
	  $(B)/libvncl.a $(LIBS) -ldl

blas: $(B)/blas/libblas.so.3

# A test program linked against the drop-in as an application is.
$(B)/test/blas/test_dropin: test/blas/test_dropin.c $(B)/blas/libblas.so.3
	@mkdir -p $(@D)
	$(CC) -std=c11 $(OPT) -Wall -Wextra $(WERROR) $(SAN) -o $@ $< \
	  -L$(B)/blas -l:libblas.so.3 -Wl,-rpath,'$$ORIGIN/../../blas' \
	  -lcmocka -lpthread -lm

# Every exported name of libblas.so.3 is one of the reference libblas3's,
# and none of those is missing.
BLAS_REF ?= /usr/lib/$(MULTIARCH)/blas/libblas.so.3
checksymbols-blas: $(B)/blas/libblas.so.3
	@sh scripts/check-blas-symbols.sh $(B)/blas/libblas.so.3 $(BLAS_REF)

# The netlib testers of Debian's libblas-test and the NumPy test, against
# build/blas/libblas.so.3 with every Level-3 call on the device.
check-blas: $(B)/blas/libblas.so.3 $(B)/test/blas/test_dropin checksymbols-blas
	sh scripts/check-blas.sh $(B)

# Registers the installed library as a libblas.so.3 alternative (priority
# 5: below OpenBLAS and the reference BLAS, so select it with
# update-alternatives --set or --config).
ALT_LINK = /usr/lib/$(MULTIARCH)/libblas.so.3
ALT_NAME = libblas.so.3-$(MULTIARCH)
install-blas-alternative:
	update-alternatives --install $(ALT_LINK) $(ALT_NAME) \
	  $(LIBDIR)/vncl-blas/libblas.so.3 5

uninstall-blas-alternative:
	update-alternatives --remove $(ALT_NAME) $(LIBDIR)/vncl-blas/libblas.so.3

check: check-blas

.PHONY: blas checksymbols-blas check-blas install-blas-alternative \
  uninstall-blas-alternative

tests: $(TEST_BIN)

deps:
	@sh scripts/install-deps.sh

# Calls and includes flow downward through lib/'s layers (folders), with
# the remaining debts listed in scripts/layer-debts.txt.
checklayers: $(B)/libvncl.a
	@sh scripts/check-layers.sh $(B)

# Every exported symbol of the shared library must be public API.
checksymbols: $(B)/libvncl.so
	@bad=$$(nm -D --defined-only $(B)/libvncl.so | awk '{print $$3}' | \
	  grep -v '^vncl_' | grep -v '^_' || true); \
	 inner=$$(nm -D --defined-only $(B)/libvncl.so | awk '{print $$3}' | \
	  grep '^vncl__' || true); \
	 if [ -n "$$bad$$inner" ]; then echo "checksymbols: not public API:"; \
	  echo "$$bad $$inner"; exit 1; fi; \
	 echo "checksymbols: $$(nm -D --defined-only $(B)/libvncl.so | \
	  grep -c ' vncl_') exported symbols, all vncl_*"

# The vncl command links only what the library needs: no peer of the
# benchmarks (OpenBLAS, FFTW), nothing libvncl.so does not need itself.
checkldd: $(B)/vncl $(B)/libvncl.so
	@sh scripts/check-ldd.sh $(B)/vncl $(B)/libvncl.so

check: deps all tests checksymbols checklayers checkldd
	sh scripts/run-tests.sh $(B)/test $(TEST_BIN)
	@# The transfer suite again with every host copy through the bounce
	@# buffer, and so the table row for alignment-sensitive hosts: the path
	@# an AVX2 EPYC takes, whatever this host's memcpy does.
	VNCL_HOST_COPY=bounce sh scripts/run-tests.sh $(B)/test-bounce \
	  $(B)/test/test_transfer
	@# Once more with tensors in ordinary buffers (where SVM would take
	@# them): the rows and paths of devices without fine-grained SVM.
	VNCL_TENSOR_MEMORY=buffer VNCL_HOST_COPY=bounce sh scripts/run-tests.sh \
	  $(B)/test-buffer $(B)/test/test_transfer
	sh scripts/check-example.sh $(B)
	$(MAKE) check-fault

# ASan and PoCL's LLVM disagree about a thread's alternate signal stack: LLVM
# replaces one smaller than SIGSTKSZ + 64 KiB with a malloc'd stack of its
# own, and ASan, at that thread's exit, unmaps whatever stack is installed
# ("failed to deallocate ... unable to unmap"). SIGSTKSZ follows the CPU's
# signal frame, so ASan's stack (4 x SIGSTKSZ) is big enough on AVX-512 hosts
# and too small on AVX2 ones. Not a vncl fault: ASan's own stack is turned
# off (docs/portability.md, "Sanitizers", has the evidence).
SAN_ASAN_OPTIONS = use_sigaltstack=0
# test_kernel_builds checks the compilers' build logs with every cache off:
# what it checks does not change under a sanitizer, and the host code that
# builds programs runs under ASan in every other test (with the cache off
# too in test_cache, test_fft and test_gemm). Under ASan it
# took 146 s of CI's 1309 (2026-12-02), against 73 s without.
ASAN_TEST_BIN = $(filter-out %/test_kernel_builds,$(TEST_BIN))
check-asan:
	$(MAKE) B=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
	  all tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:$(SAN_ASAN_OPTIONS) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  sh scripts/run-tests.sh build-asan/test \
	  $(patsubst $(B)/%,build-asan/%,$(ASAN_TEST_BIN))

# Fault injection: a library whose OpenCL calls, host allocations and cache
# writes can be failed one at a time, under ASan/UBSan; test/fault_walk.c
# fails every call of each main flow in turn.
FAULT_B = build-fault
FAULT_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined
check-fault:
	$(MAKE) B=$(FAULT_B) OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="$(FAULT_SAN)" DEFS=-DVNCL_FAULT_INJECTION $(FAULT_B)/libvncl.a
	$(CC) $(INTERNAL_CFLAGS) $(FAULT_SAN) -DVNCL_FAULT_INJECTION -Itest \
	  -o $(FAULT_B)/fault_walk test/fault_walk.c $(TEST_COMMON) \
	  $(FAULT_B)/libvncl.a $(TEST_LIBS)
	ASAN_OPTIONS=detect_leaks=1:$(SAN_ASAN_OPTIONS) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  sh scripts/run-tests.sh $(FAULT_B)/log $(FAULT_B)/fault_walk

# Every kernel family under Oclgrind (a simulated GPU: work-items of a group
# interleave, local memory is checked), with its data-race detector, under
# the limits of each vendor's GPUs and with every built-in GPU parameter
# set; fails on any Oclgrind report (scripts/check-oclgrind.sh,
# docs/portability.md). test/oclgrind_check.c is not a test_* binary: the
# normal suite does not run it.
$(B)/test/oclgrind_check: test/oclgrind_check.c test/test_ops.h
check-oclgrind: deps $(B)/libvncl.a $(B)/test/oclgrind_check
	sh scripts/check-oclgrind.sh $(B)

# The threading tests under ThreadSanitizer (suppressions: test/tsan.supp).
check-tsan:
	$(MAKE) B=build-tsan OPT="-O1 -g" SAN=-fsanitize=thread \
	  build-tsan/test/test_threads
	TSAN_OPTIONS="suppressions=$(CURDIR)/test/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
	  sh scripts/run-tests.sh build-tsan/test build-tsan/test/test_threads

# libFuzzer targets (clang): test/fuzz/fuzz_*.c, seeds in test/fuzz/corpus/.
# Each runs FUZZ_SECONDS on a working copy of its corpus, as many at a time
# as there are CPUs (scripts/fuzz-run.sh).
FUZZ_SECONDS ?= 30
FUZZ_B = build-fuzz
FUZZ_SAN = -fsanitize=address,undefined
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,%,$(sort $(wildcard test/fuzz/fuzz_*.c)))
fuzz:
	$(MAKE) B=$(FUZZ_B) CC=clang OPT="-O1 -g" \
	  SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_B)/libvncl.a
	@set -e; for t in $(FUZZ_TARGETS); do \
	  clang $(INTERNAL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $(FUZZ_B)/$$t \
	    test/fuzz/$$t.c $(FUZZ_B)/libvncl.a $(LIBS); \
	done
	ASAN_OPTIONS=$(SAN_ASAN_OPTIONS) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp \
	  sh scripts/fuzz-run.sh $(FUZZ_B) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- MPI component (optional): mpi/ -> libvncl_mpi, its tests under mpirun
# (test/mpi/), and examples/mpi_gemm.c. Built with `all` when mpicc and
# mpirun are found (Debian's Open MPI: scripts/install-deps.sh installs it);
# `make check` runs check-mpi, which says so and skips when they are not.
MPICC ?= mpicc
MPIRUN ?= mpirun
MPI_NP ?= 2
MPI_TIMEOUT ?= 240
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && \
  command -v $(MPIRUN) >/dev/null 2>&1 && echo yes)
MPI_LIBS := $(B)/libvncl_mpi.a $(B)/libvncl_mpi.so
MPI_TEST_BIN := $(patsubst test/mpi/%.c,$(B)/test/mpi/%,\
  $(sort $(wildcard test/mpi/test_*.c)))
# As root (CI), more ranks than cores, under a time limit: a rank that
# hangs fails the test instead of stalling the suite.
MPI_RUN = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout -k 10 $(MPI_TIMEOUT) $(MPIRUN) -np $(MPI_NP) --oversubscribe \
  --tag-output

$(B)/obj/mpi/%.o: mpi/%.c mpi/vncl_mpi.h $(HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(LIB_CFLAGS) -Impi -c $< -o $@

$(B)/libvncl_mpi.a: $(B)/obj/mpi/vncl_mpi.o
	rm -f $@
	ar rcs $@ $^

$(B)/libvncl_mpi.so.$(VERSION): $(B)/obj/mpi/vncl_mpi.o $(B)/libvncl.so
	$(MPICC) -shared -Wl,-soname,libvncl_mpi.so.$(VERSION_MAJOR) $(SAN) \
	  -o $@ $< -L$(B) -lvncl $(LIBS)

$(B)/libvncl_mpi.so: $(B)/libvncl_mpi.so.$(VERSION)
	ln -sf libvncl_mpi.so.$(VERSION) $(B)/libvncl_mpi.so.$(VERSION_MAJOR)
	ln -sf libvncl_mpi.so.$(VERSION_MAJOR) $@

$(B)/test/mpi/%: test/mpi/%.c $(TEST_COMMON) test/common.h mpi/vncl_mpi.h \
  $(B)/libvncl_mpi.a $(B)/libvncl.a $(HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(INTERNAL_CFLAGS) -Itest -Impi -o $@ $< $(TEST_COMMON) \
	  $(B)/libvncl_mpi.a $(B)/libvncl.a $(TEST_LIBS)

$(B)/mpi_gemm: examples/mpi_gemm.c mpi/vncl_mpi.h $(B)/libvncl_mpi.a \
  $(B)/libvncl.a $(HDRS)
	$(MPICC) $(CFLAGS_BASE) -Impi -o $@ $< $(B)/libvncl_mpi.a \
	  $(B)/libvncl.a $(LIBS)

mpi: $(MPI_LIBS) $(B)/mpi_gemm

ifeq ($(HAVE_MPI),yes)
all: $(MPI_LIBS)
endif

# Each MPI test and the example, under mpirun -np $(MPI_NP) with two PoCL
# devices per process (each rank takes its own).
check-mpi: deps all
	@if ! command -v $(MPICC) >/dev/null 2>&1 || \
	    ! command -v $(MPIRUN) >/dev/null 2>&1; then \
	  echo "check-mpi: skipped: $(MPICC) or $(MPIRUN) not found"; exit 0; fi; \
	$(MAKE) --no-print-directory mpi $(MPI_TEST_BIN) >/dev/null || exit 1; \
	fails=0; \
	for t in $(MPI_TEST_BIN) "$(B)/mpi_gemm 300 200 400"; do \
	  name=$$(basename $${t%% *}); log=$(B)/test/mpi/$$name.log; \
	  mkdir -p $(B)/test/mpi; start=$$(date +%s); \
	  POCL_DEVICES="pthread pthread" $(MPI_RUN) $$t >$$log 2>&1; rc=$$?; \
	  secs=$$(( $$(date +%s) - start )); \
	  np=$$(grep -o 'PASSED  \] [0-9]* test' $$log | \
	    awk '{s+=$$3} END {print s+0}'); \
	  what="$$np test(s) passed over the ranks"; \
	  if [ $$name = mpi_gemm ]; then what="the example's check passed"; \
	    grep -q 'mpi_gemm: ok' $$log || rc=1; fi; \
	  if [ $$rc -eq 0 ]; then \
	    echo "ok      $$name (mpirun -np $(MPI_NP)): $$what ($${secs}s)"; \
	  else \
	    [ $$rc -eq 124 ] && echo "TIMEOUT $$name after $(MPI_TIMEOUT)s" || \
	      echo "FAIL    $$name: exit $$rc (log: $$log)"; \
	    tail -n 40 $$log; fails=$$((fails + 1)); \
	  fi; \
	done; \
	[ $$fails -eq 0 ] && echo "check-mpi: all passed" || \
	  { echo "check-mpi: $$fails failed"; exit 1; }

check: check-mpi

install-mpi: mpi install
	cp mpi/vncl_mpi.h $(DESTDIR)$(INCDIR)/
	cp $(B)/libvncl_mpi.so.$(VERSION) $(B)/libvncl_mpi.a $(DESTDIR)$(LIBDIR)/
	ln -sf libvncl_mpi.so.$(VERSION) \
	  $(DESTDIR)$(LIBDIR)/libvncl_mpi.so.$(VERSION_MAJOR)
	ln -sf libvncl_mpi.so.$(VERSION_MAJOR) $(DESTDIR)$(LIBDIR)/libvncl_mpi.so

uninstall-mpi:
	rm -f $(DESTDIR)$(INCDIR)/vncl_mpi.h $(DESTDIR)$(LIBDIR)/libvncl_mpi.a \
	  $(DESTDIR)$(LIBDIR)/libvncl_mpi.so.$(VERSION) \
	  $(DESTDIR)$(LIBDIR)/libvncl_mpi.so.$(VERSION_MAJOR) \
	  $(DESTDIR)$(LIBDIR)/libvncl_mpi.so

.PHONY: mpi check-mpi install-mpi uninstall-mpi

demo: deps all
	$(B)/vncl info

SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
  -e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
  -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g'

install: all
	mkdir -p $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) \
	  $(DESTDIR)$(PCDIR) $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(LIBDIR)/vncl-blas
	cp include/*.h $(DESTDIR)$(INCDIR)/
	cp $(B)/libvncl.so.$(VERSION) $(B)/libvncl.a $(DESTDIR)$(LIBDIR)/
	ln -sf libvncl.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libvncl.so
	cp $(B)/vncl $(B)/vncl-bench $(DESTDIR)$(BINDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  vncl.pc.in > $(DESTDIR)$(PCDIR)/vncl.pc
	$(SUBST) cmake/vnclConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/vnclConfig.cmake
	$(SUBST) cmake/vnclConfigVersion.cmake.in \
	  > $(DESTDIR)$(CMAKEDIR)/vnclConfigVersion.cmake
	cp $(B)/blas/libblas.so.3 $(DESTDIR)$(LIBDIR)/vncl-blas/libblas.so.3

uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/,$(notdir $(wildcard include/*.h))) \
	  $(DESTDIR)$(LIBDIR)/libvncl.so.$(VERSION) \
	  $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libvncl.so \
	  $(DESTDIR)$(LIBDIR)/libvncl.a $(DESTDIR)$(BINDIR)/vncl \
	  $(DESTDIR)$(BINDIR)/vncl-bench \
	  $(DESTDIR)$(PCDIR)/vncl.pc \
	  $(DESTDIR)$(CMAKEDIR)/vnclConfig.cmake \
	  $(DESTDIR)$(CMAKEDIR)/vnclConfigVersion.cmake \
	  $(DESTDIR)$(LIBDIR)/vncl-blas/libblas.so.3

clean:
	rm -rf $(B) build-asan build-fault build-tsan build-fuzz

.PHONY: all tests deps checksymbols checklayers checkldd check check-asan check-fault check-tsan fuzz \
  check-oclgrind \
  demo \
  install uninstall \
  clean

# Under -j, a goal that installs the packages first (demo, check, the
# checks that name deps) would compile beside the install, and on a fresh
# machine before the headers are there: then every object and program
# waits for it. (Here, at the end, so that every list is defined.)
ifneq ($(filter demo check check-oclgrind check-mpi deps,$(MAKECMDGOALS)),)
$(LIB_OBJ) $(TOOL_OBJ) $(BENCH_OBJ) $(BENCH_TOOL_OBJ) $(BLAS_OBJ) \
  $(B)/obj/mpi/vncl_mpi.o $(TEST_BIN) $(MPI_TEST_BIN) \
  $(B)/test/oclgrind_check: | deps
endif
