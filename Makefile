# ShardMeter: the two set-up commands are `make run` and `make test`.
# Each installs whatever Debian packages are missing, configures and builds (Release), then runs.
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc)
PKGS     = cmake ninja-build g++ libtbb-dev libboost-program-options-dev libhdf5-dev catch2 \
           libyaml-cpp-dev libfmt-dev nlohmann-json3-dev python3-h5py python3-pandas chromium \
           pybind11-dev python3-dev
APT      = apt-get -o DPkg::Lock::Timeout=600
SUDO     = $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: all deps configure build run test bench validate clean readme-schema golden install

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

# The main job: search the default scenario's plan space, print its Pareto front, write it to HDF5.
run: build
	./$(BUILD)/shardmeter search scenarios/default.yaml -o $(BUILD)/default_front.h5

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD)/bench_estimate
	./$(BUILD)/bench_search

# The binary, the data (PREFIX/share/shardmeter), README and docs; the binary finds its data from where it is.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

validate: build
	./$(BUILD)/shardmeter validate

# Rewrite tests/golden/expected/ (the byte-identical outputs the golden test compares) after a change that means to
# move the numbers; say why in the commit.
golden: build
	/usr/bin/python3 tests/golden/check_golden.py ./$(BUILD)/shardmeter . $(BUILD)/golden --update

clean:
	rm -rf $(BUILD)

# Regenerate docs/scenarios.md's scenario-key table (between the schema markers) from the declared schema.
readme-schema: build
	./$(BUILD)/shardmeter schema > $(BUILD)/schema.md
	awk -v f=$(BUILD)/schema.md '/<!-- schema:begin -->/ {print; while ((getline l < f) > 0) print l; skip=1; next} \
	     /<!-- schema:end -->/ {skip=0} !skip' docs/scenarios.md > $(BUILD)/scenarios.md.tmp && mv $(BUILD)/scenarios.md.tmp docs/scenarios.md
