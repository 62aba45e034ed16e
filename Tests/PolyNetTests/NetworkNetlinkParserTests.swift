import Testing

@testable import PolyNet

/// Builds netlink messages the way the kernel lays them out (host byte order, 4-byte alignment).
private struct NetlinkBuilder {
    var bytes: [UInt8] = []

    static func host<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var result = host(UInt16(4 + value.count)) + host(type) + value
        while result.count % 4 != 0 { result.append(0) }
        return result
    }

    mutating func message(type: UInt16, body: [UInt8]) {
        bytes +=
            Self.host(UInt32(16 + body.count)) + Self.host(type) + Self.host(UInt16(0)) + Self.host(UInt32(1))
            + Self.host(UInt32(0)) + body
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    static func address(family: UInt8, prefix: UInt8, index: UInt32, attributes: [[UInt8]]) -> [UInt8] {
        [family, prefix, 0, 0] + host(index) + attributes.flatMap { $0 }
    }

    static func link(index: UInt32, flags: UInt32, name: String) -> [UInt8] {
        [0, 0, 0, 0] + host(index) + host(flags) + host(UInt32(0)) + attribute(3, Array(name.utf8) + [0])
    }
}

@Suite struct NetworkNetlinkParserTests {
    @Test func parsesAddressAndLinkMessages() throws {
        var builder = NetlinkBuilder()
        builder.message(
            type: 20,
            body: NetlinkBuilder.address(
                family: 2, prefix: 24, index: 7,
                attributes: [
                    NetlinkBuilder.attribute(1, [192, 0, 2, 10]), NetlinkBuilder.attribute(2, [192, 0, 2, 10]),
                    NetlinkBuilder.attribute(3, Array("pv0".utf8) + [0]),
                ]))
        let v6 = IPAddress("2001:db8::10")!
        builder.message(
            type: 21,
            body: NetlinkBuilder.address(
                family: 10, prefix: 64, index: 7, attributes: [NetlinkBuilder.attribute(1, v6.bytes)]))
        builder.message(type: 16, body: NetlinkBuilder.link(index: 7, flags: 0x1 | 0x40, name: "pv0"))
        builder.message(type: 17, body: NetlinkBuilder.link(index: 8, flags: 0, name: "pv1"))
        builder.message(type: 24, body: [1, 2, 3, 4])  // a route message: ignored
        let changes = try NetlinkParser.parse(builder.bytes)
        #expect(
            changes == [
                .addressAdded(
                    .init(ip: IPAddress("192.0.2.10")!, prefixLength: 24, interfaceIndex: 7, interfaceName: "pv0")),
                .addressRemoved(.init(ip: v6, prefixLength: 64, interfaceIndex: 7, interfaceName: nil)),
                .linkChanged(interfaceIndex: 7, name: "pv0", isUp: true),
                .linkRemoved(interfaceIndex: 8, name: "pv1"),
            ])
    }

    @Test func refusesEveryTruncationWithoutCrashing() throws {
        var builder = NetlinkBuilder()
        builder.message(
            type: 20,
            body: NetlinkBuilder.address(
                family: 2, prefix: 24, index: 3, attributes: [NetlinkBuilder.attribute(2, [192, 0, 2, 1])]))
        let whole = builder.bytes
        #expect(try NetlinkParser.parse(whole).count == 1)
        for cut in 1..<whole.count {
            #expect(throws: NetlinkParseError.self) { try NetlinkParser.parse(Array(whole.prefix(cut))) }
        }
    }

    @Test func refusesLyingLengths() throws {
        var builder = NetlinkBuilder()
        builder.message(
            type: 20,
            body: NetlinkBuilder.address(
                family: 2, prefix: 24, index: 3, attributes: [NetlinkBuilder.attribute(2, [192, 0, 2, 1])]))
        var tooLong = builder.bytes
        tooLong.replaceSubrange(0..<4, with: NetlinkBuilder.host(UInt32(4096)))
        #expect(throws: NetlinkParseError.badLength(4096, at: 0)) { try NetlinkParser.parse(tooLong) }
        var tooShort = builder.bytes
        tooShort.replaceSubrange(0..<4, with: NetlinkBuilder.host(UInt32(8)))
        #expect(throws: NetlinkParseError.badLength(8, at: 0)) { try NetlinkParser.parse(tooShort) }
        var attributeTooLong = builder.bytes
        attributeTooLong.replaceSubrange(24..<26, with: NetlinkBuilder.host(UInt16(200)))
        #expect(throws: NetlinkParseError.self) { try NetlinkParser.parse(attributeTooLong) }
        var attributeZero = builder.bytes
        attributeZero.replaceSubrange(24..<26, with: NetlinkBuilder.host(UInt16(0)))
        #expect(throws: NetlinkParseError.self) { try NetlinkParser.parse(attributeZero) }
    }

    @Test func refusesAddressesOfTheWrongSize() {
        var builder = NetlinkBuilder()
        builder.message(
            type: 20,
            body: NetlinkBuilder.address(
                family: 2, prefix: 24, index: 3, attributes: [NetlinkBuilder.attribute(2, [192, 0, 2, 1, 5])]))
        #expect(throws: NetlinkParseError.badAddress(at: 24)) { try NetlinkParser.parse(builder.bytes) }
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededRandomBytes(seed: 42)
        for length in 0..<300 {
            _ = try? NetlinkParser.parse(random.bytes(length))
        }
    }
}

private struct SeededRandomBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Small values for the length fields make deep parses likely.
            return UInt8(truncatingIfNeeded: state >> 59)
        }
    }
}
