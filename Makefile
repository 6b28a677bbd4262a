# make run   : set up (apt-get what is missing), build, run the default suite with a report
# make test  : set up, build, run the unit and VM integration tests
BUILD ?= build
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/quick.json
OUT ?= results/quick

.PHONY: setup configure build run test unit clean

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only the two programs a run needs: a first `make run` compiles no test.
run: configure
	@cmake --build $(BUILD) -j$(JOBS) --target storbed storbed-agent
	$(BUILD)/orchestrator/storbed run $(SCENARIO) --out $(OUT)

# libvirtd and virtlogd are started for the tests when not running, and stopped after.
test: build
	scripts/with-services.sh sh -c 'cd $(BUILD) && ctest --output-on-failure -LE bench' 

unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

clean:
	rm -rf $(BUILD)
