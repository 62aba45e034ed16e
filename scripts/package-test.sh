#!/usr/bin/env bash
# Installs dist/polyvoice_*_amd64.deb into a fresh Debian 12 root that has no Swift toolchain and runs
# it there: polyvoice --version, man -w polyvoice, polyvoice devices, polyvoice demo. Run by `make test`.
#
# The root is made with debootstrap (minbase, plus man-db) once and cached outside the clone
# ($POLYVOICE_TEST_ROOT, default /var/cache/polyvoice-test-root). The package's Depends (and the
# demo's espeak-ng and sox, and systemd to verify the unit) are installed by apt into a second cached
# layer, keyed by those fields.
# Each run then stacks a new, empty overlay on both, so the package is installed with dpkg into a root
# nobody installed it into before, and the overlay is thrown away afterwards: seconds, not minutes.
# Needs root (chroot, mount); fails, never skips, when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls dist/polyvoice_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "package-test: no dist/polyvoice_*_amd64.deb (run scripts/package.sh)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "package-test: needs root for chroot and mount"; exit 1; }
for tool in debootstrap chroot dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "package-test: $tool missing (scripts/setup.sh installs it)"; exit 1; }
done

cache=${POLYVOICE_TEST_ROOT:-/var/cache/polyvoice-test-root}
mirror=${POLYVOICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$cache/base
mkdir -p "$cache"
work=$(mktemp -d "$cache/run.XXXXXX")
mounted=()

cleanup() {
  local index
  for (( index=${#mounted[@]}-1; index>=0; index-- )); do
    umount "${mounted[$index]}" 2>/dev/null || umount -l "${mounted[$index]}" || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Mounts an overlay of `lower` (colon-separated, top first) with `upper` at `target`, and the kernel
# file systems a chroot needs inside it.
enter() {
  local lower=$1 upper=$2 target=$3
  mkdir -p "$upper" "$work/overlay-work-$(basename "$target")" "$target"
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work/overlay-work-$(basename "$target")" "$target"
  mounted+=("$target")
  mount -t proc proc "$target/proc" && mounted+=("$target/proc")
  mount -t sysfs sysfs "$target/sys" && mounted+=("$target/sys")
  mount --bind /dev "$target/dev" && mounted+=("$target/dev")
  mount -t devpts devpts "$target/dev/pts" -o newinstance,ptmxmode=0666 && mounted+=("$target/dev/pts")
  mount -t tmpfs tmpfs "$target/tmp" && mounted+=("$target/tmp")
}

# Unmounts everything `enter` mounted, innermost first.
leave() {
  while [ ${#mounted[@]} -gt 0 ]; do
    umount "${mounted[-1]}"
    unset 'mounted[-1]'
  done
}

in_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "${@:2}"; }

# 1. The base root: debootstrap once.
if [ ! -f "$base/.complete" ]; then
  echo "package-test: debootstrap bookworm (minbase + man-db) into $base…"
  rm -rf "$base"
  start=$(date +%s)
  debootstrap --variant=minbase --include=man-db bookworm "$base" "$mirror" > "$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log"; echo "package-test: debootstrap failed"; exit 1; }
  touch "$base/.complete"
  echo "package-test: debootstrap took $(( $(date +%s) - start )) s"
fi

# 2. The dependency layer: what apt installs for the package's Depends, once per Depends/Recommends.
# espeak-ng and sox make the demo's speech (Recommends); systemd brings systemd-analyze to verify the unit.
extra=(espeak-ng sox systemd)
fields=$(dpkg-deb -f "$deb" Depends Recommends)
key=$(echo "$fields ${extra[*]}" | sha256sum | cut -c1-16)
deps=$cache/deps-$key
if [ ! -f "$deps.complete" ]; then
  echo "package-test: installing the package's dependencies into a cached layer…"
  start=$(date +%s)
  rm -rf "$deps"
  enter "$base" "$deps" "$work/deps-root"
  cp /etc/resolv.conf "$work/deps-root/etc/resolv.conf"
  cp "$deb" "$work/deps-root/tmp/polyvoice.deb"
  in_root "$work/deps-root" apt-get update -qq
  # apt resolves the Depends exactly as a user's `apt install ./polyvoice_….deb` would; the package itself
  # is removed again so the layer holds only its dependencies (and the demo's recommended tools).
  in_root "$work/deps-root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    /tmp/polyvoice.deb "${extra[@]}" > "$cache/deps.log" 2>&1 || { tail -20 "$cache/deps.log"; exit 1; }
  in_root "$work/deps-root" dpkg --purge polyvoice > /dev/null
  in_root "$work/deps-root" apt-get clean
  leave
  touch "$deps.complete"
  echo "package-test: dependency layer took $(( $(date +%s) - start )) s"
  for old in "$cache"/deps-*.complete; do
    [ "$old" = "$deps.complete" ] || { rm -rf "${old%.complete}" "$old"; }
  done
fi

# 3. A fresh root for this run: an empty overlay on both cached layers.
start=$(date +%s)
root=$work/root
enter "$deps:$base" "$work/upper" "$root"
failures=0
check() {  # check NAME PATTERN COMMAND…: runs in the root, must exit 0 and print a line matching PATTERN (ERE)
  local name=$1 expected=$2 output
  shift 2
  if output=$(in_root "$root" sh -c "cd /tmp && $*" 2>&1) && grep -qE -- "$expected" <<< "$output"; then
    echo "  ok   $name"
  else
    echo "  FAIL $name: $*"; echo "$output" | tail -15 | sed 's/^/       /'
    failures=$((failures + 1))
  fi
}
echo "package-test: in a fresh Debian 12 root:"
cp "$deb" "$root/tmp/polyvoice.deb"
check "dpkg -i (Depends already met, nothing fetched)" "Setting up polyvoice" dpkg -i /tmp/polyvoice.deb
check "no Swift toolchain or runtime in the root" "none" \
  '[ -z "$(command -v swift swiftc)" ] && [ -z "$(find / -xdev -name "libswiftCore*" 2>/dev/null)" ] && echo none'
check "every linked library found" "libopus" 'ldd /usr/bin/polyvoice | grep -v "not found"; ! ldd /usr/bin/polyvoice | grep "not found"'
check "polyvoice --version" "libwebsockets:" polyvoice --version
check "man -w polyvoice" "/usr/share/man/man1/polyvoice.1.gz" man -w polyvoice
check "man -w polyvoice-call" "/usr/share/man/man1/polyvoice-call.1.gz" man -w polyvoice-call
check "polyvoice devices" "No audio devices found|^ID +NAME" polyvoice devices
check "polyvoice demo" "Demo call \(script agent\)" polyvoice demo
check "bash completion completes 'polyvoice ca'" "^call$" \
  "bash -c '. /usr/share/bash-completion/completions/polyvoice; COMP_WORDS=(polyvoice ca); COMP_CWORD=1; _polyvoice; echo \${COMPREPLY[*]}'"
unit=/lib/systemd/system/polyvoice-bridge.service
check "bridge unit verifies (systemd-analyze)" "^verified$" "systemd-analyze verify $unit && echo verified"
check "bridge unit: dynamic user, no token or environment in it" "^clean$" \
  "grep -q '^DynamicUser=yes' $unit && grep -q '^LoadCredential=tokens:' $unit && ! grep -qE '^(Environment|EnvironmentFile)=' $unit && ! grep -qi 'token=' $unit && echo clean"
echo "package-test: the run took $(( $(date +%s) - start )) s"
[ "$failures" -eq 0 ] || { echo "package-test: $failures check(s) failed"; exit 1; }
echo "package-test: all checks passed"
