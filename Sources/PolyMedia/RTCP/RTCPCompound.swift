// Parsing and serializing compound RTCP datagrams, tolerant of RFC 5506 reduced-size RTCP.
import PolyCore

/// Compound RTCP datagrams: several RTCP packets back to back.
///
/// Parsing accepts reduced-size RTCP (RFC 5506): a datagram need not start with SR/RR nor
/// contain SDES, any packet may be padded, and unknown packet types (feedback, XR, APP) are skipped.
public enum RTCPCompound {
    /// Parses every packet of `bytes`; throws for the first malformed one.
    public static func parse<Bytes: RandomAccessCollection>(_ bytes: Bytes) throws(RTCPParseError) -> [RTCPPacket]
    where Bytes.Element == UInt8, Bytes.Index == Int, Bytes: Sendable, Bytes.SubSequence: Sendable {
        var packets: [RTCPPacket] = []
        var reader = ByteReader(bytes)
        guard !reader.isAtEnd else { throw .truncatedHeader(offset: 0) }
        while !reader.isAtEnd {
            let offset = reader.offset
            guard reader.remaining >= 4, let first = reader.peek(), let packetType = reader.peek(1),
                let high = reader.peek(2), let low = reader.peek(3)
            else { throw .truncatedHeader(offset: offset) }
            guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
            let length = ((Int(high) << 8 | Int(low)) + 1) * 4
            guard let packet = try? reader.readBytes(length) else {
                throw .lengthExceedsDatagram(packetType: packetType, offset: offset)
            }
            if let parsed = try parsePacket(packet, first: first, packetType: packetType) { packets.append(parsed) }
        }
        return packets
    }

    private static func parsePacket<Bytes: RandomAccessCollection>(
        _ packet: Bytes, first: UInt8, packetType: UInt8
    ) throws(RTCPParseError) -> RTCPPacket?
    where Bytes.Element == UInt8, Bytes.Index == Int, Bytes: Sendable, Bytes.SubSequence: Sendable {
        var body = ByteReader(packet)
        let count = Int(first & 0x1F)
        do {
            try body.skip(4)
            if first & 0x20 != 0 {
                let padding = Int(packet[packet.endIndex - 1])
                guard padding > 0, padding <= body.remaining else {
                    throw RTCPParseError.invalidPadding(packetType: packetType)
                }
                try body.dropLast(padding)
            }
            switch packetType {
            case RTCPPacket.PacketType.senderReport:
                let ssrc = try body.readUInt32()
                let ntp = NTPTimestamp(value: try body.readUInt64())
                let report = RTCPSenderReport(
                    ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: try body.readUInt32(),
                    packetCount: try body.readUInt32(), octetCount: try body.readUInt32(),
                    reports: try readReportBlocks(count, from: &body))
                return .senderReport(report)
            case RTCPPacket.PacketType.receiverReport:
                let ssrc = try body.readUInt32()
                return .receiverReport(
                    RTCPReceiverReport(ssrc: ssrc, reports: try readReportBlocks(count, from: &body)))
            case RTCPPacket.PacketType.sourceDescription:
                return .sourceDescription(try readSourceDescription(count, from: &body))
            case RTCPPacket.PacketType.goodbye:
                return .goodbye(try readGoodbye(count, from: &body))
            default:
                return nil
            }
        } catch let error as RTCPParseError {
            throw error
        } catch {
            throw .bodyTruncated(packetType: packetType)
        }
    }

    private static func readReportBlocks<Bytes>(_ count: Int, from body: inout ByteReader<Bytes>) throws
        -> [RTCPReportBlock]
    {
        guard count * RTCPReportBlock.wireCount <= body.remaining else {
            throw ByteReaderError.truncated(
                needed: count * RTCPReportBlock.wireCount, available: body.remaining, at: body.offset)
        }
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count {
            let ssrc = try body.readUInt32()
            let lossWord = try body.readUInt32()
            // The 24-bit cumulative loss is signed: sign-extend it.
            let lost = Int32(bitPattern: lossWord << 8) >> 8
            blocks.append(
                RTCPReportBlock(
                    ssrc: ssrc, fractionLost: UInt8(lossWord >> 24), cumulativeLost: lost,
                    extendedHighestSequence: try body.readUInt32(), jitter: try body.readUInt32(),
                    lastSenderReport: try body.readUInt32(), delaySinceLastSenderReport: try body.readUInt32()))
        }
        return blocks  // Profile-specific extensions after the blocks are ignored.
    }

    private static func readSourceDescription<Bytes>(
        _ count: Int, from body: inout ByteReader<Bytes>
    ) throws -> RTCPSourceDescription {
        var chunks: [RTCPSourceDescription.Chunk] = []
        for _ in 0..<count {
            let chunkStart = body.offset
            var chunk = RTCPSourceDescription.Chunk(ssrc: try body.readUInt32(), items: [])
            while true {
                let type = try body.readUInt8()
                if type == 0 { break }
                let length = Int(try body.readUInt8())
                chunk.items.append(.init(type: type, value: Array(try body.readBytes(length))))
            }
            // Chunks end with null octets up to a 32-bit boundary.
            let used = body.offset - chunkStart
            try body.skip((4 - used % 4) % 4)
            chunks.append(chunk)
        }
        return RTCPSourceDescription(chunks: chunks)
    }

    private static func readGoodbye<Bytes>(_ count: Int, from body: inout ByteReader<Bytes>) throws -> RTCPGoodbye {
        var ssrcs: [UInt32] = []
        for _ in 0..<count { ssrcs.append(try body.readUInt32()) }
        var reason: String?
        if !body.isAtEnd {
            let length = Int(try body.readUInt8())
            reason = String(decoding: try body.readBytes(length), as: UTF8.self)
        }
        return RTCPGoodbye(ssrcs: ssrcs, reason: reason)
    }
}

extension RTCPCompound {
    /// Serializes `packets` back to back into one datagram. More than 31 report blocks, SDES
    /// chunks or BYE sources in one packet are cut to 31; items and reasons to 255 bytes.
    public static func serialize(_ packets: [RTCPPacket]) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        for packet in packets { write(packet, into: &writer) }
        return writer.bytes
    }

    private static func write(_ packet: RTCPPacket, into writer: inout ByteWriter) {
        let start = writer.count
        switch packet {
        case .senderReport(let report):
            let blocks = report.reports.prefix(31)
            writeHeader(count: blocks.count, type: RTCPPacket.PacketType.senderReport, into: &writer)
            writer.write(report.ssrc)
            writer.write(report.ntpTimestamp.value)
            writer.write(report.rtpTimestamp)
            writer.write(report.packetCount)
            writer.write(report.octetCount)
            for block in blocks { write(block, into: &writer) }
        case .receiverReport(let report):
            let blocks = report.reports.prefix(31)
            writeHeader(count: blocks.count, type: RTCPPacket.PacketType.receiverReport, into: &writer)
            writer.write(report.ssrc)
            for block in blocks { write(block, into: &writer) }
        case .sourceDescription(let description):
            let chunks = description.chunks.prefix(31)
            writeHeader(count: chunks.count, type: RTCPPacket.PacketType.sourceDescription, into: &writer)
            for chunk in chunks {
                let chunkStart = writer.count
                writer.write(chunk.ssrc)
                for item in chunk.items where item.type != 0 {
                    let value = item.value.prefix(255)
                    writer.write(item.type)
                    writer.write(UInt8(value.count))
                    writer.write(contentsOf: value)
                }
                // At least one null octet ends the item list, then pad to 32 bits.
                writer.write(UInt8(0))
                while (writer.count - chunkStart) % 4 != 0 { writer.write(UInt8(0)) }
            }
        case .goodbye(let goodbye):
            let ssrcs = goodbye.ssrcs.prefix(31)
            writeHeader(count: ssrcs.count, type: RTCPPacket.PacketType.goodbye, into: &writer)
            for ssrc in ssrcs { writer.write(ssrc) }
            if let reason = goodbye.reason {
                let text = Array(reason.utf8.prefix(255))
                writer.write(UInt8(text.count))
                writer.write(contentsOf: text)
                while (writer.count - start) % 4 != 0 { writer.write(UInt8(0)) }
            }
        }
        writer.patch(UInt16((writer.count - start) / 4 - 1), at: start + 2)
    }

    private static func writeHeader(count: Int, type: UInt8, into writer: inout ByteWriter) {
        writer.write(UInt8(0x80 | count))
        writer.write(type)
        writer.write(UInt16(0))  // length, patched once the body is written
    }

    private static func write(_ block: RTCPReportBlock, into writer: inout ByteWriter) {
        writer.write(block.ssrc)
        let lost = UInt32(bitPattern: min(max(block.cumulativeLost, -0x80_0000), 0x7F_FFFF)) & 0x00FF_FFFF
        writer.write(UInt32(block.fractionLost) << 24 | lost)
        writer.write(block.extendedHighestSequence)
        writer.write(block.jitter)
        writer.write(block.lastSenderReport)
        writer.write(block.delaySinceLastSenderReport)
    }
}
