# TraitBridge: every target installs what is missing first (scripts/install-deps.sh is idempotent).
SWIFT ?= swift
.PHONY: deps build test test-asan demo bench catalog validate clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

## The test command: installs what is missing, runs every test, then every test again under
## AddressSanitizer (which includes LeakSanitizer on Linux) to show json-c ownership is leak-free.
## The tests use Swift Testing only; --disable-xctest keeps XCTest's empty runner (which leaks a
## little by itself) out of the leak report.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-xctest
	$(MAKE) test-asan

test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/.lsan-suppressions $(SWIFT) test --sanitize=address --scratch-path .build-asan --disable-xctest

## The main job. Until the bridge lands (issues #3 and #6) this builds traitbridge and checks the
## shipped mappings; it will start a demo home on a private broker.
demo: deps
	$(SWIFT) build --product traitbridge
	$(SWIFT) run traitbridge mappings validate mappings

bench: deps
	$(SWIFT) run -c release TraitBridgeBench

validate: build
	$(SWIFT) run traitbridge mappings validate mappings

## Regenerates mappings/catalog/traits.json and device-types.json from ../shared/reference.
catalog:
	python3 scripts/generate-catalog.py ../shared/reference mappings/catalog

clean:
	rm -rf .build .build-asan
