# PolyVoice for Linux. Each main target runs scripts/setup.sh first, so one
# command does all set-up on a fresh Debian 12 machine with the Swift toolchain.
.PHONY: setup build lint format test package demo bench fuzz clean

setup:
	@bash scripts/setup.sh

build: setup
	@bash scripts/build.sh

# The libraries and the CLI import FoundationEssentials, never all of Foundation (docs/MEMORY.md: 4.7 MB a call).
lint:
	swift format lint --strict --recursive --configuration .swift-format Package.swift Sources Tests Benchmarks Samples
	@! grep -rlE --include='*.swift' '^import (Foundation|FoundationNetworking)$$' Sources \
	  || { echo "lint: the files above import Foundation; Sources use FoundationEssentials (docs/MEMORY.md)"; exit 1; }

format:
	swift format format --in-place --recursive --configuration .swift-format Package.swift Sources Tests Benchmarks Samples

test: setup lint
	@bash scripts/test.sh

# dist/polyvoice_<version>_amd64.deb (scripts/package.sh); make test also installs it into a Debian 12 root.
package: setup
	@bash scripts/package.sh

demo: setup
	@bash scripts/demo.sh

bench: setup
	@bash scripts/bench.sh

# make fuzz NAME=FuzzSTUN TIME=600 — one libFuzzer harness from fuzz/ (see scripts/fuzz.sh).
fuzz:
	bash scripts/fuzz.sh $(or $(NAME),FuzzRTP) $(or $(TIME),60)

clean:
	rm -rf .build out dist Samples/ExamplePackage/.build
