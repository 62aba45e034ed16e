#!/usr/bin/env bash
# make package: dist/polyvoice_<version>_amd64.deb, a package that runs without the Swift toolchain.
#
# The binary is a release build with the Swift standard library and Foundation linked statically; the
# Debian libraries it links are found by dpkg-shlibdeps and become Depends. Man pages and completion
# scripts come from the binary itself (`polyvoice help --man|--completion`), so they say what --help says.
# The version is the one `polyvoice --version` prints (Sources/PolyVoiceCLI/Version.swift).
# Prints the release build time, the package size and lintian's verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$root/.build/package
stage=$scratch/stage
mkdir -p "$scratch/commit" dist

# The commit goes in through a generated header (see Sources/CBuildInfo): only one C file recompiles.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
header=$scratch/commit/polyvoice_commit.h
want="#define POLYVOICE_COMMIT \"$commit\""
[ -f "$header" ] && [ "$(cat "$header")" = "$want" ] || echo "$want" > "$header"

echo "package: release build (static Swift runtime)…"
start=$(date +%s)
# The filter drops progress lines and the linker's "use of mktemp is dangerous", which comes from the
# toolchain's static Foundation, not from this project.
swift build -c release --static-swift-stdlib --product polyvoice --scratch-path "$scratch" \
  -Xcc "-I$scratch/commit" -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now 2>&1 \
  | grep -vE "prohibited flag|^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write|use of .mktemp. is dangerous" || true
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "package: release build failed"; exit 1; }
echo "package: release build took $(( $(date +%s) - start )) s"
binary=$scratch/release/polyvoice

version=$("$binary" --version | head -1 | cut -d' ' -f2)
maintainer="PolyVoice for Linux maintainers <maintainers@users.noreply.a-seed-15ebcf57.example>"
deb=dist/polyvoice_${version}_amd64.deb

rm -rf "$stage"
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/man/man1" "$stage/usr/share/doc/polyvoice" \
  "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
  "$stage/lib/systemd/system" "$stage/etc/polyvoice"
install -m 0755 "$binary" "$stage/usr/bin/polyvoice"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/bin/polyvoice"

# Man pages from the CLI's help texts; -n: no timestamp, so the same binary gives the same package.
pv=$stage/usr/bin/polyvoice
"$pv" help --man | gzip -9n > "$stage/usr/share/man/man1/polyvoice.1.gz"
for command in $("$pv" help --completion bash | sed -n 's/^        \([a-z-]*\))$/\1/p'); do
  "$pv" help --man "$command" | gzip -9n > "$stage/usr/share/man/man1/polyvoice-$command.1.gz"
done
"$pv" help --completion bash > "$stage/usr/share/bash-completion/completions/polyvoice"
"$pv" help --completion zsh > "$stage/usr/share/zsh/vendor-completions/_polyvoice"
chmod 0644 "$stage"/usr/share/bash-completion/completions/* "$stage"/usr/share/zsh/vendor-completions/*

install -m 0644 packaging/polyvoice-bridge.service "$stage/lib/systemd/system/"
install -m 0644 packaging/bridge.conf "$stage/etc/polyvoice/bridge.conf"
echo /etc/polyvoice/bridge.conf > "$stage/DEBIAN/conffiles"
install -m 0644 packaging/copyright "$stage/usr/share/doc/polyvoice/copyright"
# Shipped only when it holds an override (today it holds none: lintian has nothing to say).
if grep -qv '^#' packaging/lintian-overrides; then
  install -D -m 0644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/polyvoice"
fi

# A native package's changelog, made from the version and commit (no second place to bump).
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
printf 'polyvoice (%s) bookworm; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
  "$version" "$commit" "$maintainer" "$date" | gzip -9n > "$stage/usr/share/doc/polyvoice/changelog.gz"

# Depends: what dpkg-shlibdeps finds for the binary (it wants a debian/control to read).
shlibs=$scratch/shlibs
rm -rf "$shlibs" && mkdir -p "$shlibs/debian"
printf 'Source: polyvoice\n\nPackage: polyvoice\nArchitecture: amd64\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$stage/usr/bin/polyvoice" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package: dpkg-shlibdeps found no dependencies"; exit 1; }
# libespeak-ng is loaded when first used (dlopen, Sources/CEspeakNG/shim.h), so dpkg-shlibdeps cannot see it.
depends="$depends, libespeak-ng1 (>= 1.51)"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@MAINTAINER@|$maintainer|" -e "s|@INSTALLED_SIZE@|$size|" \
  -e "s|@DEPENDS@|$depends|" packaging/control.in > "$stage/DEBIAN/control"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
  > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

rm -f dist/polyvoice_*_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB, installed $size KiB)"
echo "package: Depends: $depends"

# lintian must print nothing: a tag that stays is overridden in packaging/lintian-overrides, with a
# comment saying why (shown here with --show-overrides as O: lines).
command -v lintian >/dev/null || { echo "package: lintian is missing (scripts/setup.sh installs it)"; exit 1; }
report=$(lintian --info --show-overrides --tag-display-limit 0 "$deb" 2>&1 | grep -v "running with root privileges" || true)
[ -z "$report" ] || echo "$report"
if echo "$report" | grep -qE '^[EWIP]: '; then
  echo "package: lintian reported tags (fix them or explain them in packaging/lintian-overrides)"; exit 1
fi
echo "package: lintian clean$(echo "$report" | grep -q '^O: ' && echo ' (O: lines are explained overrides)')"
