# make run   : set up (apt-get what is missing), build, run the default suite with a report
# make test  : set up, build, run the unit and VM integration tests and (make sanitize) the
#              unit tests under ASan+UBSan and a replay of the fuzzers' seed corpus
# make package: build/storbed_<version>_amd64.deb (tests/package/package_test.sh installs it in a fresh root)
BUILD ?= build
SAN_BUILD ?= build-san
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/quick.json
OUT ?= results/quick
# ON: -Werror (`make test`, CI, sets it: a new warning fails it); empty: as configured before.
WERROR ?=

# Ninja for a new build dir: it compiles files of different targets at once, where make
# waits target by target (a clean storbed + agent here: 279 s against 315 s); a dir
# configured before keeps its generator.
GENERATOR = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)

.PHONY: setup configure build run test unit package sanitize-build sanitize clean

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) $(call GENERATOR,$(BUILD)) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(if $(WERROR),-DSTORBED_WERROR=$(WERROR)) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only the two programs a run needs: a first `make run` compiles no test.
run: configure
	@cmake --build $(BUILD) -j$(JOBS) --target storbed storbed-agent
	$(BUILD)/orchestrator/storbed run $(SCENARIO) --out $(OUT)

# libvirtd and virtlogd are started for the tests when not running, and stopped after.
# scripts/run-tests.sh runs the unit, VM, package and sanitizer tests in three phases that
# keep both cores busy (it says which run beside which). Unit tests run as shards of their
# binaries (label shard, cmake/unit_tests.cmake; `ctest -L unit -R Name` runs one by one). A
# VM test that fails runs once more: two at a time, a TCG guest now and then hangs before
# /init (docs/boot.md: one guest in three runs of the suite here), and that fails the test
# that booted it. The failed attempt and its output stay in the log.
test: WERROR = ON
test: build
	scripts/with-services.sh scripts/run-tests.sh $(BUILD) $(SAN_BUILD) $(JOBS) $(WERROR)

# build/storbed_<version>_amd64.deb (cmake/package.cmake): the two programs, scenarios, docs,
# man pages and bash completion.
package: build
	cd $(BUILD) && cpack -G DEB

unit: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -L shard

# A clang build with every object under ASan+UBSan (cmake/sanitize.cmake): every target, so
# with -Werror (`make test`) a clang warning anywhere fails as a gcc one does. Its unit tests
# and fuzzers run (`make sanitize`); its storbed, agent (linked dynamically) and VM tests
# are only compiled.
sanitize-build: setup
	@CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) $(call GENERATOR,$(SAN_BUILD)) -DSTORBED_SANITIZE=ON \
	  $(if $(WERROR),-DSTORBED_WERROR=$(WERROR)) >/dev/null
	@cmake --build $(SAN_BUILD) -j$(JOBS)

# The unit tests under the sanitizers, as shards (any report fails its shard: UBSan does not
# recover, LeakSanitizer fails the exit), and each fuzzer once over its seed corpus (label
# fuzz). The shards leave out what cmake/sanitize.cmake names (STORBED_SANITIZE_SKIP, and why).
sanitize: sanitize-build
	cd $(SAN_BUILD) && UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS) -L 'shard|fuzz'

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
