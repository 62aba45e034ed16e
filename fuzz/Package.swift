// swift-tools-version:6.0
// libFuzzer harnesses for PolyVoice's parsers of network input. Kept out of the main package so
// normal builds never see the fuzzer flags. Run one with `scripts/fuzz.sh <Target> <seconds>`.
//
// To add a harness: a folder Sources/Fuzz<Name>/ with one file defining
// `@_cdecl("LLVMFuzzerTestOneInput")`, an entry in `harnesses` below, seeds in corpus/Fuzz<Name>/.
import PackageDescription

/// Harness name → products of the main package it links.
let harnesses: [(name: String, products: [String])] = [
    ("FuzzByteReader", ["PolyCore"]),
    ("FuzzRTP", ["PolyMedia"]),
    ("FuzzRTCP", ["PolyMedia"]),
    ("FuzzSRTP", ["PolyMedia"]),
    ("FuzzSTUN", ["PolyCore", "PolyNet"]),
    ("FuzzSDP", ["PolyNet"]),
    ("FuzzTURN", ["PolyCore", "PolyNet"]),
    ("FuzzScenario", ["PolyConversation"]),
    ("FuzzHTTPRequest", ["PolyCore", "PolySignaling", "PolyVoiceBridge"]),
    ("FuzzEventsFrame", ["PolyCore", "PolySignaling"]),
    ("FuzzOpusPacket", ["PolyMedia"]),  // PolyAudio (no product of its own) comes with PolyMedia
]

let package = Package(
    name: "PolyVoiceFuzz",
    dependencies: [.package(name: "PolyVoice", path: "..")],
    targets: harnesses.map { harness in
        .executableTarget(
            name: harness.name,
            dependencies: harness.products.map { .product(name: $0, package: "PolyVoice") },
            // libFuzzer supplies main(); the harness file must not be treated as top-level code.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
