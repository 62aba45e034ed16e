// DTLSBench: what a DTLS-SRTP handshake costs (two endpoints in memory, no network), per SRTP profile,
// against generating one ECDSA P-256 certificate in the same process as the baseline.
// Reports CPU time of this thread (robust on a shared machine) and wall time.
import Foundation
import PolyCore
import PolyNet

struct Sample {
    var cpu: Double
    var wall: Double
}

func threadCPUMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

func measure(_ body: () throws -> Void) rethrows -> Sample {
    let cpu = threadCPUMilliseconds()
    let wall = Instant.now()
    try body()
    return Sample(cpu: threadCPUMilliseconds() - cpu, wall: (Instant.now() - wall).inMilliseconds)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// One complete handshake between fresh endpoints (certificates made beforehand), moving datagrams in memory.
func handshake(_ profile: DTLSSRTPProfile, _ a: DTLSCertificate, _ b: DTLSCertificate) throws {
    let client = try DTLSEndpoint(
        .init(role: .client, certificate: a, remoteFingerprints: [b.fingerprint], srtpProfiles: [profile]))
    let server = try DTLSEndpoint(
        .init(role: .server, certificate: b, remoteFingerprints: [a.fingerprint], srtpProfiles: [profile]))
    var connected = 0
    client.start(at: .zero)
    while connected < 2 {
        var moved = false
        for (from, to) in [(client, server), (server, client)] {
            while let output = from.pollOutput(at: .zero) {
                moved = true
                switch output {
                case .transmit(let bytes): try to.handle(.datagram(bytes), at: .zero)
                case .event(.connected): connected += 1
                case .event(let other): fatalError("handshake failed: \(other)")
                }
            }
        }
        precondition(moved || connected == 2, "handshake stalled")
    }
}

let runs = 20
let a = try DTLSCertificate.generate()
let b = try DTLSCertificate.generate()
_ = try handshake(.aeadAes128Gcm, a, b)  // warm-up: OpenSSL fetches its algorithms on first use
let baseline = try (0..<runs).map { _ in try measure { _ = try DTLSCertificate.generate() } }
let baselineCPU = median(baseline.map(\.cpu))
print(
    String(
        format: "certificate generation (baseline): median CPU %.3f ms, wall %.3f ms, of %d", baselineCPU,
        median(baseline.map(\.wall)), runs))
var result: [String: Any] = [
    "bench": "DTLSBench", "certificate_cpu_ms": baselineCPU, "runs": runs,
    "ratio_kind": "handshake CPU / certificate generation CPU",
]
for profile in DTLSSRTPProfile.allCases {
    let samples = try (0..<runs).map { _ in try measure { try handshake(profile, a, b) } }
    let cpu = median(samples.map(\.cpu))
    print(
        String(
            format: "handshake %@: median CPU %.3f ms (%.1fx baseline), wall %.3f ms, of %d", "\(profile)", cpu,
            cpu / baselineCPU, median(samples.map(\.wall)), runs))
    result["handshake_cpu_ms_\(profile)"] = cpu
    result["handshake_wall_ms_\(profile)"] = median(samples.map(\.wall))
    result["handshake_ratio_\(profile)"] = cpu / baselineCPU
}
print(
    "RESULT_JSON "
        + String(
            decoding: try JSONSerialization.data(
                withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
