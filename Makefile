# TraitBridge: every target installs what is missing first (scripts/install-deps.sh is idempotent).
SWIFT ?= swift
.PHONY: deps matter-server schemathesis browser camera-peers homekit-peers home-assistant build test test-plain test-asan demo bench fuzz catalog validate install uninstall deb clean

deps:
	@scripts/install-deps.sh

## The real Matter Server the Matter tests and the demo run (python-matter-server in .build-matter/venv).
matter-server:
	@scripts/install-matter-server.sh

## schemathesis, run by the API tests against the served OpenAPI document (.build-schemathesis/venv).
schemathesis:
	@scripts/install-schemathesis.sh || echo "schemathesis did not install: the API's schemathesis test is skipped"

## Debian's chromium and chromium-driver, and selenium (.build-browser/venv): the web UI's browser test.
browser:
	@scripts/install-browser.sh || echo "the browser did not install: the web UI's browser test is skipped"

## aiortc (a real WebRTC stack) for the simulated camera's go2rtc endpoint and the test viewer (.build-camera/venv).
camera-peers:
	@scripts/install-camera-peers.sh || echo "aiortc did not install: the live view tests are skipped"

## Avahi (mDNS responder) and aiohomekit (a real HomeKit controller, .build-homekit/venv) for the HomeKit tests.
homekit-peers:
	@scripts/install-homekit-peers.sh || echo "the HomeKit peers did not install: the HomeKit tests are skipped"

## Home Assistant Core (.build-homeassistant/venv) for the tests of its MQTT discovery (HomeAssistantPeer).
home-assistant:
	@scripts/install-home-assistant.sh || echo "Home Assistant did not install: the Home Assistant tests are skipped"

build: deps
	$(SWIFT) build

## The test command: installs what is missing, then runs every test under AddressSanitizer (which
## includes LeakSanitizer on Linux: json-c ownership and the C boundary are leak-free). The same
## assertions as a plain `swift test` (the quick loop while developing, `make test-plain`), and
## memory errors and leaks besides. The tests use Swift Testing only; --disable-xctest keeps
## XCTest's empty runner (which leaks a little by itself) out of the leak report. scripts/run-tests.sh
## fails the run when a process the tests started is still running after them.
test: test-asan

test-plain: deps matter-server schemathesis browser camera-peers homekit-peers home-assistant
	$(SWIFT) build --build-tests
	scripts/run-tests.sh $(SWIFT) test --disable-xctest

## ASan keeps freed memory in quarantine (256 MB by default) to catch use after free; the tests that
## bound serve's peak RSS (hostile publishers) would measure that quarantine, so it is kept at 64 MB.
test-asan: deps matter-server schemathesis browser camera-peers homekit-peers home-assistant
	ASAN_OPTIONS=quarantine_size_mb=64 LSAN_OPTIONS=suppressions=$(CURDIR)/.lsan-suppressions \
		scripts/run-tests.sh $(SWIFT) test --sanitize=address --scratch-path .build-asan --disable-xctest

## The main job: a demo home on a private local broker (mosquitto on a free 127.0.0.1 port,
## simulated zigbee2mqtt, Tasmota and Shelly devices, the bridge, a partner cloud linked in, a real
## Matter Server with a bridge's node and a software Matter light, both in a network sandbox):
## status, then changes until Ctrl-C. `make demo ARGS=--once` prints the status and exits.
## Everything it starts is stopped at the end.
## CONFIG=asan reuses the test build (CI does, to stay well under its time budget; leaks are the
## tests' to report); CONFIG=debug the plain debug build.
ARGS ?=
CONFIG ?= release
demo: deps
	@scripts/install-matter-server.sh || \
		echo "demo: the Matter Server did not install; the demo goes on without Matter devices"
	@scripts/install-camera-peers.sh || \
		echo "demo: aiortc did not install; the demo's camera goes on without its live view"
	@scripts/install-homekit-peers.sh || \
		echo "demo: the HomeKit peers did not install; the demo goes on without HomeKit"
ifeq ($(CONFIG),asan)
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product traitbridge
	ASAN_OPTIONS=detect_leaks=0 .build-asan/debug/traitbridge demo $(ARGS)
else
	$(SWIFT) build -c $(CONFIG) --product traitbridge
	.build/$(CONFIG)/traitbridge demo $(ARGS)
endif

bench: deps
	$(SWIFT) run -c release TraitBridgeBench

## Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of every entry point that takes outside
## bytes, FUZZ_SECONDS per target (CI: 20). Corpora and crashers are kept in Fuzz/; see Fuzz/README.md.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

validate: build
	$(SWIFT) run traitbridge mappings validate mappings

## Regenerates mappings/catalog/traits.json, device-types.json and google-c2c.json from ../shared/reference.
catalog:
	python3 scripts/generate-catalog.py ../shared/reference mappings/catalog
	python3 scripts/generate-c2c-catalog.py ../shared/reference mappings/catalog/google-c2c.json

## Installed like a system program: the binary (release, Swift runtime linked in), bash/zsh/fish
## completions, the manual, examples/ as share/traitbridge/examples, the systemd unit and its
## sysusers file. `make uninstall` removes exactly what was written. BINARY=path installs a built one.
PREFIX ?= /usr/local
DESTDIR ?=
install: deps
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/package.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/package.sh uninstall

## The Debian package: .build-deb/traitbridge_<version>_<arch>.deb (dpkg -i it; see docs/operations.md).
deb: deps
	scripts/package.sh deb

clean:
	rm -rf .build .build-asan .build-fuzz .build-matter .build-schemathesis .build-browser .build-static .build-deb .build-tools .build-homeassistant
