# Front door: `make reproduce` runs the study, `make test` the test suite. Both bootstrap
# first (scripts/bootstrap.sh installs only what is missing).
SHELL := /bin/bash
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
DEVICE ?= emulator-emmc
SCALE ?= quick
CORES ?= $(shell nproc)
# Jobs at once per host core. A busy guest holds a whole core through the resource
# host_load (100 per host core; rules/common/guest.smk, guest_host_load): two busy TCG
# guests on one core take more CPU than one after the other (docs/measurements.md).
# Guests that idle more run more to a core (the appenders two, Ext4 tuning's and ARS
# SQLite's three on two cores), and host jobs (traces, ftl-sim replays, tables) run
# beside the guests.
GUESTS_PER_CORE ?= 2
# Memory (MiB) the run hands out: what the host has free. A guest job asks for its RAM
# plus 1 GiB (rules/common/guest.smk), so a host with less memory runs fewer at once.
MEM_MB ?= $(shell awk '/^MemAvailable:/ {print int($$2 / 1024)}' /proc/meminfo)
# (--resources takes every word up to the next option: it comes before --cores.)
# Snakemake selects jobs again one rate-limit timespan after every selection, and each
# finished job starts another such chain, so at the default 100/1s its own process's CPU
# grows with the jobs done. A minute's timespan cuts the selections sixty-fold; a
# finished job still starts the next at once, and Snakemake waits up to the timespan for
# its timers when the run ends (docs/measurements.md, "One busy guest per core, the
# greedy job selector, long chains first", has the threads and CPU it measured).
SNAKEMAKE = snakemake --profile profiles/default \
    --resources mem_mb=$(MEM_MB) adb_jobs=1 host_load=$$(( $(CORES) * 100 )) \
    --max-jobs-per-timespan 1000/1m --cores $$(( $(CORES) * $(GUESTS_PER_CORE) ))

.PHONY: all reproduce check stability compare dist release test test-fast lint format lock bootstrap preflight fetch cores clean clean-all help
CHECK ?= treatments

help:
	@echo "make reproduce   run the study (snakemake all) on DEVICE=$(DEVICE) at SCALE=$(SCALE)"
	@echo "make check       run what check CHECK=$(CHECK) needs at SCALE=$(SCALE); fail unless its claims hold"
	@echo "make stability   run the study twice at SCALE=$(SCALE); list every verdict that differs"
	@echo "make compare     list every verdict of the run at DEVICE, SCALE that differs from the"
	@echo "                 committed reference (docs/reference/); STRICT=1 fails on a difference"
	@echo "make test        bootstrap, then the whole test suite"
	@echo "make test-fast   unit tests only (no emulator, no kernel build)"
	@echo "make lint        ruff, snakefmt, snakemake --lint, shellcheck, lintr, cargo fmt/clippy,"
	@echo "                 the agent with -Werror"
	@echo "make lock        record config/claims.lock after a claim or a config key it reads"
	@echo "                 changed (refused unless each changed claim has a new history entry)"
	@echo "make docs        regenerate docs/appendix.md, docs/figures.md and README's reference"
	@echo "                 counts (claims, figure registry, docs/reference/)"
	@echo "make dist        the source archive to deposit: dist/mobifrag-<version>.tar.gz with the"
	@echo "                 pinned outside inputs whose licences allow it, and its sha256"
	@echo "make release     VERSION=x.y.z: date that version in CHANGELOG, pyproject, CITATION.cff"
	@echo "make flashsim-diff  build FlashSim, replay sampled traces through it and ftl-sim (DEVICE, SCALE)"
	@echo "make test-arm64  cross-build the HiKey960 kernel and boot it under qemu-system-aarch64"
	@echo "make fuzz        fuzz the agent's trace parser and ftl-sim's readers (docs/fuzzing.md)"
	@echo "make format      ruff format and snakefmt in place"
	@echo "make bootstrap   install what is missing (Debian packages, .venv, agent, ftl-sim)"
	@echo "make cores       check CORES, GUESTS_PER_CORE and MEM_MB"
	@echo "make preflight   check that every pinned outside input can be had (reproduce and test do)"
	@echo "make fetch       copy every pinned outside input into VENDOR_CACHE=$(VENDOR_CACHE), for"
	@echo "                 MOBIFRAG_VENDOR to name on a machine that reaches no upstream"
	@echo "make clean       remove results and rendered figures (keeps kernel and builds)"
	@echo "make clean-all   also remove build/ (kernel cache), .venv and native builds"

bootstrap:
	@scripts/bootstrap.sh

# Every pinned outside input (FlashSim, filebench, IOzone, Mobibench's traces) can be had,
# checked before the first job: a missing one is named with its checksum in seconds.
# reproduce, check, stability and test run it before bootstrap (its fetches need only
# bash, git, apt-get, dpkg-deb and coreutils, which a bare Debian 12 has), so a machine
# without them stops in seconds, not after the venv's minutes.
preflight:
	@scripts/preflight.sh

# The same inputs, fetched on a connected machine, in one folder laid out as
# ../shared/vendor/: an offline machine takes them with MOBIFRAG_VENDOR=<that folder>.
VENDOR_CACHE ?= .cache/vendor
fetch: bootstrap preflight
	python -m mobifrag.release cache --build "$${PREFLIGHT_BUILD:-build}" --out $(VENDOR_CACHE)

# A run's cores, guests per core and memory: positive whole numbers (Snakemake would
# take CORES=-1 without a word).
cores:
	@[[ "$(CORES)" =~ ^[1-9][0-9]*$$ ]] || \
	    { echo "make: CORES=$(CORES) is not a positive number of cores" >&2; exit 2; }
	@[[ "$(GUESTS_PER_CORE)" =~ ^[1-9][0-9]*$$ ]] || \
	    { echo "make: GUESTS_PER_CORE=$(GUESTS_PER_CORE) is not a positive number" >&2; exit 2; }
	@[[ "$(MEM_MB)" =~ ^[1-9][0-9]*$$ ]] || \
	    { echo "make: MEM_MB=$(MEM_MB) is not a positive number of MiB" >&2; exit 2; }

# When a job fails, the claims are still judged from the tables that exist
# (mobifrag/report/partial.py), and the exit status stays Snakemake's.
reproduce: cores preflight bootstrap
	@status=0; start=$$(date +%s); \
	$(SNAKEMAKE) all --config device=$(DEVICE) scale=$(SCALE) || status=$$?; \
	if [ $$status -ne 0 ]; then python -m mobifrag.report.partial \
	    --device $(DEVICE) --scale $(SCALE) --since $$start || true; fi; \
	echo "results/$(DEVICE)/$(SCALE)/claims.md: $$(sed -n 3p results/$(DEVICE)/$(SCALE)/claims.md)"; \
	exit $$status

# The study twice, the second time as the scale <SCALE>-again (a copy of the preset, so
# every workload, guest run and table is made anew), then every verdict that differs.
STABILITY := results/$(DEVICE)/stability-$(SCALE)
stability: cores preflight bootstrap
	python -m mobifrag.report.stability prepare --scale $(SCALE) --out $(STABILITY).yaml
	$(SNAKEMAKE) all \
	    --config device=$(DEVICE) scale=$(SCALE)
	$(SNAKEMAKE) all \
	    --configfile $(STABILITY).yaml --config device=$(DEVICE) scale=$(SCALE)-again
	python -m mobifrag.report.stability compare results/$(DEVICE)/$(SCALE)/claims.csv \
	    results/$(DEVICE)/$(SCALE)-again/claims.csv --markdown $(STABILITY).md

# A run's verdicts against the reference run committed for its device and scale
# (docs/reference/<device>-<scale>.csv): every claim whose verdict differs, new or
# missing, into results/<device>/<scale>/compare.md. Differences fail only with STRICT=1.
compare: bootstrap
	python -m mobifrag.report.reference compare results/$(DEVICE)/$(SCALE)/claims.csv \
	    --reference docs/reference/$(DEVICE)-$(SCALE).csv \
	    --markdown results/$(DEVICE)/$(SCALE)/compare.md$(if $(STRICT), --strict)

check: cores preflight bootstrap
	@checks="$$(python -m mobifrag.report.claims --list-checks)" || exit 2; \
	grep -qx -- '$(CHECK)' <<< "$$checks" || { \
	    echo "make: no check CHECK=$(CHECK); the checks are:" $$checks >&2; exit 2; }
	$(SNAKEMAKE) results/$(DEVICE)/$(SCALE)/checks/$(CHECK).md \
	    --config device=$(DEVICE) scale=$(SCALE)

test: preflight bootstrap
	$(MAKE) -C agent test
	@if [ -f ftl-sim/Cargo.toml ]; then cargo test --release --locked --manifest-path ftl-sim/Cargo.toml; fi
	python -m pytest

test-fast: bootstrap
	$(MAKE) -C agent test
	python -m pytest -m "not emulator"

lint: bootstrap
	ruff check mobifrag tests scripts
	ruff format --check mobifrag tests scripts
	snakefmt --check Snakefile rules
	python scripts/lint-workflow.py
	shellcheck jobs/*.sh scripts/*.sh benchmarks/*/*.sh model/*/*.sh traces/*/*.sh .ci/run
	Rscript -e 'lints <- unlist(lapply(Sys.glob("paper-figures/*.R"), lintr::lint), recursive = FALSE)' \
	    -e 'class(lints) <- "lints"; print(lints)' \
	    -e 'cat(sprintf("lintr (.lintr): %d finding(s) in paper-figures/*.R\n", length(lints)))' \
	    -e 'quit(status = length(lints) > 0)'
	@if [ -f ftl-sim/Cargo.toml ]; then \
	    set -x; \
	    cargo fmt --check --manifest-path ftl-sim/Cargo.toml && \
	    cargo fmt --check --manifest-path ftl-sim/fuzz/Cargo.toml && \
	    cargo clippy --manifest-path ftl-sim/Cargo.toml --all-targets -- -D warnings; \
	fi
# The agent and its tests, every file compiled afresh so that no warning hides in an
# object built earlier.
	rm -rf agent/build/lint
	$(MAKE) -s -C agent BUILD=build/lint WARNINGS="-Wall -Wextra -Werror" \
	    build/lint/mobifrag-agent build/lint/run-tests

# The claims' pre-registration lock (docs/methods.md, Pre-registration).
lock: bootstrap
	python -m mobifrag.report.claims_lock write

format: bootstrap
	ruff format mobifrag tests scripts
	snakefmt Snakefile rules

clean:
	rm -rf results
	find paper-figures -mindepth 1 -type d -exec rm -rf {} +

clean-all: clean
	rm -rf build $(VENV) $(VENV).new $(VENV).old $(VENV).lock agent/build ftl-sim/target

# The arm64 cross-build check: builds the HiKey960 kernel, the static aarch64 agent and
# busybox through the workflow, then boots the kernel under qemu-system-aarch64 -M virt
# (TCG) and runs fragcheck on a virtio disk. About 5 min on 2 cores, the cross-build most
# of it; kept out of `make test`, and run by CI (.ci/run) before it.
.PHONY: test-arm64
test-arm64: bootstrap
	MOBIFRAG_TEST_ARM64=1 python -m pytest -m arm64 tests/emulator/test_arm64_boot.py

# The generated pages of docs/: the evaluator's appendix (every claim with its commands
# and band) and the figures page, from config/claims.yaml and paper-figures/registry.yaml,
# and README's verdict counts from the reference runs of docs/reference/;
# tests/report/test_docs_pages.py fails while they are stale.
.PHONY: docs
docs: bootstrap
	python -m mobifrag.report.docs_pages --claims config/claims.yaml \
	    --registry paper-figures/registry.yaml --out docs/ \
	    --readme README.md --references docs/reference

# The source archive to deposit (mobifrag/release.py): git archive of HEAD with the
# pinned outside inputs whose licences allow passing them on, listed with checksums and
# licences in its vendor/README.md, and the archive's sha256 beside it in dist/.
dist: bootstrap
	python -m mobifrag.release check
	python -m mobifrag.release dist --out dist

# Dates VERSION (the newest CHANGELOG section, `## VERSION (unreleased)`) in CHANGELOG,
# pyproject.toml and CITATION.cff; commit, tag v$(VERSION), then `make dist`.
release: bootstrap
	@[ -n "$(VERSION)" ] || { echo "make: release needs VERSION=x.y.z" >&2; exit 2; }
	python -m mobifrag.release release $(VERSION)

# The FlashSim cross-check (rules/infra/flashsim.smk): FlashSim built from its pinned upstream
# source, a sample of the study's block traces (the scan and dispersed runs, made first
# if missing) through it and ftl-sim, the table results/<device>/<scale>/flashsim/diff.csv
# and its figure.
.PHONY: flashsim-diff
flashsim-diff: cores bootstrap
	$(SNAKEMAKE) results/$(DEVICE)/$(SCALE)/flashsim/diff.csv \
	    paper-figures/$(DEVICE)/$(SCALE)/tmc-fig13-flashsim-diff.pdf \
	    --config device=$(DEVICE) scale=$(SCALE)

# Fuzzing of what parses outside input (docs/fuzzing.md): the agent's trace parser for
# FUZZ_SECONDS (libFuzzer when clang has -fsanitize=fuzzer, else the seeded mutation
# driver), then ftl-sim's seeded mutation tests with FUZZ_ITERATIONS inputs per target.
.PHONY: fuzz
FUZZ_SECONDS ?= 300
FUZZ_ITERATIONS ?= 20000
fuzz:
	$(MAKE) -C agent fuzz-run FUZZ_SECONDS=$(FUZZ_SECONDS)
	FTL_MUTATION_ITERATIONS=$(FUZZ_ITERATIONS) cargo test --release --locked \
	    --manifest-path ftl-sim/Cargo.toml --test mutation_fuzz -- --test-threads=1
