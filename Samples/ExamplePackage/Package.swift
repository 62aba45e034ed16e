// swift-tools-version:6.0
// An app of its own that uses PolyVoice as a dependency, the way another SwiftPM package does.
// Here by path (this repository, two levels up); from git it would be
//   .package(url: "https://example.org/polyvoice-linux.git", from: "0.1.0")
// and the product name stays "PolyVoice". scripts/sample-package-test.sh builds and runs it.
import PackageDescription

let package = Package(
    name: "EchoCheck",
    dependencies: [
        .package(name: "PolyVoice", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "EchoCheck",
            dependencies: [.product(name: "PolyVoice", package: "PolyVoice")])
    ]
)
