# The two commands of the README: `make run` and `make test`.
# Both install the Debian packages they need when missing (as root, or via sudo).

LAVAPIPE_ICD := /usr/share/vulkan/icd.d/lvp_icd.x86_64.json
APT_PACKAGES := mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-validationlayers vulkan-tools \
                libshaderc-dev glslc xvfb xdotool xclip imagemagick x11-utils
CARGO ?= cargo
ARGS ?=

.PHONY: run test check-assets core deps build bench bench-scenes screenshots lint clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs) first"; exit 1; }

build: deps
	$(CARGO) build --bin viewport

# Opens the window on the demo scene; without a display it says so and
# renders the demo headless to viewport-headless.png.
run: build
	$(CARGO) run --bin viewport -- $(ARGS)

# The gizmo core builds on its own with nalgebra alone: its dependency tree
# is printed, and any direct dependency other than nalgebra fails (so
# everything else in the tree is nalgebra's own).
core:
	$(CARGO) tree -p viewport-gizmo -e normal
	@direct=$$($(CARGO) tree -p viewport-gizmo -e normal --depth 1 --prefix none | sed 1d | cut -d' ' -f1 | sort -u | tr '\n' ' '); \
	if [ "$$direct" != "nalgebra " ]; then echo "viewport-gizmo must depend on nalgebra alone, not: $$direct"; exit 1; fi
	$(CARGO) build -p viewport-gizmo --examples
	$(CARGO) run -q -p viewport-gizmo --example embed_gizmo

# The whole suite on lavapipe (Mesa's CPU Vulkan driver) with validation on:
# the core alone and its example, the overlay recorded into a foreign ash
# program's frame (examples/embed_overlay.rs), then every test of the workspace.
test: deps core
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -q --workspace --no-deps
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --example embed_overlay -- target/embed_overlay.png
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) RUST_BACKTRACE=1 $(CARGO) test --workspace --all-targets --no-fail-fast

# Files made elsewhere (../shared beside the clone, as in CI): every real
# glTF model opened with validation, saved and screenshotted (PNGs under
# target/tmp/assets-check/), every file of the Khronos validator's test
# suite opened directly and as a scene's mesh, and every real model and
# valid suite file exported to glTF, validated and reopened. Fails if a
# folder is missing.
# The Khronos glTF-Validator (npm package gltf-validator) checks every
# export; it is installed under target/ when missing, with node and npm.
GLTF_VALIDATOR := target/gltf-validator
check-assets: deps
	@command -v npm >/dev/null || { if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; }
	@[ -d $(GLTF_VALIDATOR)/node_modules/gltf-validator ] || npm install --silent --prefix $(GLTF_VALIDATOR) gltf-validator
	GLTF_VALIDATOR_MODULES=$(CURDIR)/$(GLTF_VALIDATOR)/node_modules VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) test --test assets

bench: deps
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) bench

# The README's screenshots, from the replay scripts in assets/shots/.
screenshots: build
	for s in assets/shots/*.json; do \
	  n=$$(basename $$s .json); \
	  VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- --headless --replay $$s --screenshot docs/$$n.png || exit 1; \
	done
	# A real model made elsewhere (../shared beside the clone), opened as is.
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- ../shared/real-assets/FlightHelmet/FlightHelmet.gltf \
	  --headless --size 800x600 --screenshot docs/flight-helmet.png
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- ../shared/real-assets/FlightHelmet/FlightHelmet.gltf \
	  --lighting assets/lighting-solid.json --headless --size 800x600 --screenshot docs/flight-helmet-solid.png
	# The same before assets/sky.hdr, drawn behind it (lighting.background "environment").
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- ../shared/real-assets/FlightHelmet/FlightHelmet.gltf \
	  --lighting assets/lighting-sky-behind.json --replay assets/helmet-behind-script.json --headless --no-ui \
	  --size 800x500 --screenshot docs/flight-helmet-sky-behind.png
	# The demo on a ground, lit by a sun object (with shadows) and two lamps.
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- assets/lit-demo.json \
	  --headless --no-ui --size 800x450 --screenshot docs/lit-demo.png
	# The Khronos fox (../shared) posed by its joint objects: neck and tail turned in the scene file.
	VK_DRIVER_FILES=$(LAVAPIPE_ICD) $(CARGO) run -q --bin viewport -- assets/fox-posed.json \
	  --headless --no-ui --size 800x500 --screenshot docs/fox-posed.png

# The scale benchmarks' scenes as files (1k, 160k and 1M cubes), for
# trying them in the viewport: `viewport target/cubes-160k.json`.
bench-scenes:
	$(CARGO) run -q --release --example gen_scene -- 1000 target/cubes-1k.json
	$(CARGO) run -q --release --example gen_scene -- 160000 target/cubes-160k.json
	$(CARGO) run -q --release --example gen_scene -- 1000000 target/cubes-1M.json

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

clean:
	$(CARGO) clean
