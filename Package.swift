// swift-tools-version:6.0
// PolyVoice for Linux: live two-way voice calls from Linux to AI voice agents.
import PackageDescription

let package = Package(
    name: "PolyVoice",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PolyVoice", targets: ["PolyVoice"]),
        .library(name: "PolyVoiceBridge", targets: ["PolyVoiceBridge"]),
        .executable(name: "polyvoice", targets: ["PolyVoiceCLI"]),
        // Lower layers as products so the separate fuzz/ package can link the parsers it fuzzes.
        .library(name: "PolyCore", targets: ["PolyCore"]),
        .library(name: "PolySession", targets: ["PolySession"]),
        .library(name: "PolyMedia", targets: ["PolyMedia"]),
        .library(name: "PolyNet", targets: ["PolyNet"]),
        .library(name: "PolySignaling", targets: ["PolySignaling"]),
        .library(name: "PolyConversation", targets: ["PolyConversation"]),
    ],
    targets: [
        // MARK: C system libraries (Debian packages) with small shims for macros and variadics.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(
            name: "CPortAudio", pkgConfig: "portaudio-2.0", providers: [.apt(["portaudio19-dev", "libasound2-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CNSS", pkgConfig: "nss", providers: [.apt(["libnss3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(
            name: "CWebRTCAudioProcessing", pkgConfig: "webrtc-audio-processing",
            providers: [.apt(["libwebrtc-audio-processing-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Header only: libespeak-ng is loaded when first used (see its shim.h), so no pkgConfig (its -l flag).
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLinux"),  // epoll, eventfd, timerfd, netlink headers (no library to link)

        // MARK: Layers (lower never imports higher).
        // C API over the C++ audio processing library; SwiftPM drops pkg-config's -D flags.
        .target(
            name: "CAudioProcessing", dependencies: ["CWebRTCAudioProcessing"],
            cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")]),
        .target(name: "PolyCore", dependencies: ["CLinux"]),
        .target(name: "PolyAudio", dependencies: ["PolyCore", "COpus", "CSpeexDSP", "CPortAudio", "CAudioProcessing"]),
        .target(name: "PolyMedia", dependencies: ["PolyCore", "PolyAudio", "CSRTP", "CNSS"]),
        .target(name: "PolyNet", dependencies: ["PolyCore", "COpenSSL", "CLinux"]),
        .target(name: "PolySignaling", dependencies: ["PolyCore", "CWebSockets"]),
        // The call media engine both ends share: the sans-IO endpoint and its transport shell.
        .target(name: "PolySession", dependencies: ["PolyCore", "PolyAudio", "PolyMedia", "PolyNet"]),
        .target(
            name: "PolyVoice",
            dependencies: ["PolyCore", "PolyAudio", "PolyMedia", "PolyNet", "PolySession", "PolySignaling"]
        ),
        .target(
            name: "PolyVoiceBridge",
            dependencies: [
                "PolyCore", "PolyAudio", "PolyMedia", "PolyNet", "PolySession", "PolySignaling", "CWebSockets",
                "CLinux",
            ]),
        // Conversation tests of a voice agent (`polyvoice test`): scenarios, speech, runner, measurements, reports.
        .target(
            name: "PolyConversation",
            dependencies: ["PolyVoice", "PolyAudio", "PolyMedia", "PolyCore", "CYAML", "CEspeakNG", "CZlib"]),
        .target(
            name: "PolyVoiceTesting", dependencies: ["PolyCore", "PolyAudio", "PolyMedia", "PolyNet", "PolySignaling"]),
        // The commit `make package` builds from (a generated header; see Sources/CBuildInfo).
        .target(name: "CBuildInfo"),
        .executableTarget(
            name: "PolyVoiceCLI",
            dependencies: [
                "PolyVoice", "PolySession", "PolyVoiceBridge", "PolyVoiceTesting", "PolyConversation", "CBuildInfo",
            ]),

        // MARK: Tests mirror the targets.
        .testTarget(name: "PolyCoreTests", dependencies: ["PolyCore"]),
        .testTarget(name: "PolyAudioTests", dependencies: ["PolyAudio", "PolyCore", "COpus"]),
        .testTarget(name: "PolyMediaTests", dependencies: ["PolyMedia", "PolyVoiceTesting"]),
        .testTarget(name: "PolyNetTests", dependencies: ["PolyNet", "PolyVoiceTesting"]),
        .testTarget(
            name: "PolySessionTests",
            dependencies: ["PolySession", "PolyCore", "PolyAudio", "PolyNet", "PolyVoiceTesting"]),
        .testTarget(
            name: "PolySignalingTests", dependencies: ["PolySignaling", "PolyVoiceTesting", "URLSessionSupport"]),
        .testTarget(
            name: "PolyVoiceTests",
            dependencies: ["PolyVoice", "PolySession", "PolyVoiceBridge", "PolyVoiceTesting", "InteropSupport"],
            exclude: ["Scenarios/quality-gates.json"]),
        // A URLSession `HTTPTransport` for tests and benchmarks (the libraries link no FoundationNetworking).
        .target(
            name: "URLSessionSupport", dependencies: ["PolySignaling", "PolyCore"], path: "Tests/URLSessionSupport"),
        // Drives the aiortc peer (Tests/Interop/aiortc_peer.py) for the interop tests and ConnectBench.
        .target(
            name: "InteropSupport", dependencies: ["PolyCore", "PolySession"], path: "Tests/Interop/InteropSupport"),
        .testTarget(
            name: "PolyVoiceBridgeTests",
            dependencies: [
                "PolyVoiceBridge", "PolySession", "PolySignaling", "PolyAudio", "PolyCore", "PolyNet",
                "PolyVoiceTesting", "URLSessionSupport",
            ]),
        .testTarget(name: "PolyVoiceTestingTests", dependencies: ["PolyVoiceTesting", "PolyCore", "PolyNet"]),
        .testTarget(name: "CLITests", dependencies: ["PolyVoiceTesting", "PolyAudio"]),
        .testTarget(name: "PolyConversationTests", dependencies: ["PolyConversation", "PolyAudio"]),

        // MARK: Samples (public API only; run against the reference bridge by Tests/CLITests).
        .executableTarget(name: "SimpleCall", dependencies: ["PolyVoice"], path: "Samples/SimpleCall"),
        .executableTarget(name: "FileLoopback", dependencies: ["PolyVoice"], path: "Samples/FileLoopback"),
        .executableTarget(name: "BufferBot", dependencies: ["PolyVoice"], path: "Samples/BufferBot"),

        // MARK: Benchmarks (run by `make bench`; each prints figures and ratios against an in-process baseline).
        .target(name: "COpusBench", path: "Benchmarks/COpusBench"),
        .executableTarget(
            name: "CodecBench", dependencies: ["PolyAudio", "COpusBench"], path: "Benchmarks/CodecBench"),
        .executableTarget(name: "DTLSBench", dependencies: ["PolyNet"], path: "Benchmarks/DTLSBench"),
        .target(name: "CSRTPBench", dependencies: ["CSRTP"], path: "Benchmarks/CSRTPBench"),
        .executableTarget(
            name: "MediaBench", dependencies: ["PolyMedia", "CSRTPBench"], path: "Benchmarks/MediaBench",
            exclude: ["callgrind.sh"]),
        .executableTarget(
            name: "AudioProcessingBench", dependencies: ["PolyAudio", "CAudioProcessing", "CSRTPBench"],
            path: "Benchmarks/AudioProcessingBench"),
        .executableTarget(
            name: "BridgeLoad",
            dependencies: [
                "PolySession", "PolyVoiceBridge", "PolySignaling", "PolyNet", "PolyMedia", "PolyAudio", "PolyCore",
                "URLSessionSupport",
            ],
            path: "Benchmarks/BridgeLoad"),
        .executableTarget(
            name: "SenderEval", dependencies: ["PolyAudio", "PolyCore"], path: "Benchmarks/SenderEval",
            exclude: ["evaluate.py", "run.sh", "echo_aiortc.py"]),
        .systemLibrary(
            name: "CLibre", path: "Benchmarks/JitterEval/CLibre", pkgConfig: "libre", providers: [.apt(["libre-dev"])]),
        .executableTarget(name: "JbufHarness", dependencies: ["CLibre"], path: "Benchmarks/JitterEval/JbufHarness"),
        .executableTarget(
            name: "JitterBench", dependencies: ["PolyMedia", "PolyAudio", "PolyCore", "CSRTPBench", "COpus"],
            path: "Benchmarks/JitterBench"),
        .executableTarget(
            name: "ConnectBench", dependencies: ["PolyCore", "PolyNet", "PolySession", "InteropSupport"],
            path: "Benchmarks/ConnectBench"),
        .executableTarget(
            name: "RelaySetupBench", dependencies: ["PolyVoice", "PolyVoiceBridge", "PolyVoiceTesting"],
            path: "Benchmarks/RelaySetupBench"),
        .executableTarget(
            name: "RelayPacketBench", dependencies: ["PolyNet", "PolyMedia", "PolyCore", "PolyVoiceTesting"],
            path: "Benchmarks/RelayPacketBench"),
        .executableTarget(
            name: "CallBench",
            dependencies: ["PolyVoice", "PolyVoiceBridge", "PolyVoiceTesting", "PolyAudio", "InteropSupport"],
            path: "Benchmarks/CallBench"),
    ]
)
