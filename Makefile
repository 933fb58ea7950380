# ShardMeter: the two set-up commands are `make run` and `make test`.
# Each installs whatever Debian packages are missing, configures and builds (Release), then runs.
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc)
PKGS     = cmake ninja-build g++ libtbb-dev libboost-program-options-dev libhdf5-dev catch2 \
           libyaml-cpp-dev libfmt-dev nlohmann-json3-dev python3-h5py python3-pandas chromium \
           clang libclang-rt-14-dev libopenmpi-dev openmpi-bin pybind11-dev python3-dev
APT      = apt-get -o DPkg::Lock::Timeout=600
SUDO     = $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: all deps configure build binary run test test-sanitize fuzz bench validate clean readme-schema golden install

all: build

deps:
	@missing=""; for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) $(APT) update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) $(APT) install -y -q --no-install-recommends $$missing; \
	fi

configure: deps
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The binary alone (and the libraries it links): what `make run`, `validate`, `golden` and `readme-schema` need,
# without the test and fuzz targets `build` also compiles (docs/performance.md, "Building").
binary: configure
	cmake --build $(BUILD) -j $(JOBS) --target shardmeter

# The main job: search the default scenario's plan space, print its Pareto front, write it to HDF5.
run: binary
	./$(BUILD)/shardmeter search scenarios/default.yaml -o $(BUILD)/default_front.h5

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in a second build directory; any report
# fails the test that triggered it. .ci/run calls it after `make test` (docs/hardening.md). clang: g++ 12's
# -fsanitize=undefined rejects constexpr lookups (model::metric) as non-constant. Line tables only: a report's stack
# names file and line, and full debug info would cost a fifth more build time (CI time, docs/hardening.md).
SAN_BUILD ?= build-sanitize
SAN_ENV    = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Under mpirun, OpenMPI's components (dlopened, so unsymbolised) keep allocations to the end of the process: the MPI
# tests run with every ASan/UBSan check but the leak report. The Python module and the installed copy are tested in
# the normal build only: an instrumented extension cannot load into the uninstrumented /usr/bin/python3.
SAN_ENV_MPI = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize: deps
	@[ -f $(SAN_BUILD)/build.ninja ] || CC=clang-14 CXX=clang++-14 cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DSHARDMETER_SANITIZE=ON -DSHARDMETER_WERROR=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS) --target shardmeter shardmeter_tests \
	  fuzz_scenario_replay fuzz_set_axis_replay fuzz_front_reader_replay fuzz_catalog_replay \
	  fuzz_report_export_replay fuzz_nightly_index_replay
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) \
	  -E '^(report\.chromium_screenshot|python\.|install\.|distributed\.)'
	cd $(SAN_BUILD) && $(SAN_ENV_MPI) ctest --output-on-failure -R '^distributed\.'

# libFuzzer (clang) on each harness of tests/fuzz/ for FUZZ_SECONDS seconds, from its seed corpus and the past
# crashers, with the scenario dictionary. New crashers land in $(FUZZ_BUILD)/artifacts/: copy each to
# tests/fuzz/crashers/<harness>/ once fixed, so ctest replays it. -timeout is 60 s: the reader guard stops a child
# that loops in libhdf5 after 2 s of processor time, or that is blocked after 20 s without progress
# (results/files/isolated_process.hpp), which fuzz_report_export meets once per input; a real hang still ends the run.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES = fuzz_scenario fuzz_set_axis fuzz_front_reader fuzz_catalog fuzz_report_export fuzz_nightly_index
fuzz: deps
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDMETER_FUZZ=ON -DSHARDMETER_WERROR=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_HARNESSES)
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@set -e; for h in $(FUZZ_HARNESSES); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$h; \
	  echo "== $$h: $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=1 ./$(FUZZ_BUILD)/fuzz/$$h $(FUZZ_BUILD)/corpus/$$h tests/fuzz/corpus/$$h \
	    tests/fuzz/crashers/$$h -dict=tests/fuzz/dictionary.txt -max_total_time=$(FUZZ_SECONDS) -timeout=60 \
	    -rss_limit_mb=4096 -max_len=65536 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$h- -print_final_stats=1; \
	done

bench: build
	./$(BUILD)/bench_estimate
	./$(BUILD)/bench_search

# The binary, the data (PREFIX/share/shardmeter), README and docs; the binary finds its data from where it is.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

validate: binary
	./$(BUILD)/shardmeter validate

# Rewrite tests/golden/expected/ (the byte-identical outputs the golden test compares) after a change that means to
# move the numbers; say why in the commit.
golden: binary
	/usr/bin/python3 tests/golden/check_golden.py ./$(BUILD)/shardmeter . $(BUILD)/golden --update

clean:
	rm -rf $(BUILD)

# Regenerate docs/scenarios.md's scenario-key table (between the schema markers) from the declared schema.
readme-schema: binary
	./$(BUILD)/shardmeter schema > $(BUILD)/schema.md
	awk -v f=$(BUILD)/schema.md '/<!-- schema:begin -->/ {print; while ((getline l < f) > 0) print l; skip=1; next} \
	     /<!-- schema:end -->/ {skip=0} !skip' docs/scenarios.md > $(BUILD)/scenarios.md.tmp && mv $(BUILD)/scenarios.md.tmp docs/scenarios.md
