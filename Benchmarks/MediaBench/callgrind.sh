#!/usr/bin/env bash
# Noise-free cross-check of MediaBench: counts the instructions each side executes per packet with
# valgrind's callgrind (the same on a loaded machine) and prints the C/Swift instruction ratios.
# Instructions are not time (the CPU overlaps them differently), so the timed ratios of MediaBench
# stay the figure of record; this shows where a difference comes from and that it is not noise.
#
# Usage: Benchmarks/MediaBench/callgrind.sh [CASE...]   (default: rtp rtp-array srtp-aescm srtp-gcm)
# Needs a release build: swift build -c release --product MediaBench
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }
binary=.build/release/MediaBench
[ -x "$binary" ] || { echo "build first: swift build -c release --product MediaBench"; exit 2; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(rtp rtp-array srtp-aescm srtp-gcm)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the Swift toolchain's DWARF: count on a copy without debug information.
cp "$binary" "$work/MediaBench"
strip --strip-debug "$work/MediaBench"

# Instructions per packet of one side: only the measured loop function (and what it calls) is
# counted, over two packet counts, so set-up and the first packet's one-time costs cancel out.
per_packet() {
    local case=$1 side=$2 loop=$3 small=$4 large=$5 counts=()
    for n in "$small" "$large"; do
        valgrind --tool=callgrind --callgrind-out-file="$work/out" --collect-atstart=no \
            --toggle-collect="$loop" "$work/MediaBench" count "$case" "$side" "$n" >/dev/null 2>"$work/log" \
            || { cat "$work/log"; exit 1; }
        counts+=("$(sed -n 's/^summary: *//p' "$work/out")")
    done
    echo $(((counts[1] - counts[0]) / (large - small)))
}

json="{\"bench\":\"MediaBenchCallgrind\""
for case in "${cases[@]}"; do
    case $case in
        rtp) swift_loop='*swiftRTPLoop*' c_loop=csb_rtp_parse_serialize small=10000 large=60000 ;;
        rtp-array) swift_loop='*swiftRTPArrayLoop*' c_loop=csb_rtp_parse_serialize small=10000 large=60000 ;;
        srtp-aescm | srtp-gcm) swift_loop='*swiftSRTPLoop*' c_loop=csb_srtp_round_trips small=200 large=600 ;;
        *) echo "unknown case $case"; exit 2 ;;
    esac
    swift=$(per_packet "$case" swift "$swift_loop" $small $large)
    c=$(per_packet "$case" c "$c_loop" $small $large)
    ratio=$(awk -v c="$c" -v s="$swift" 'BEGIN { printf "%.3f", c / s }')
    printf '%-11s instructions/packet: Swift %6d, C %6d; C/Swift ratio %s\n' "$case" "$swift" "$c" "$ratio"
    key=${case//-/_}
    json+=",\"${key}_instructions_swift\":$swift,\"${key}_instructions_c\":$c,\"${key}_instruction_ratio\":$ratio"
done
echo "RESULT_JSON $json}"
