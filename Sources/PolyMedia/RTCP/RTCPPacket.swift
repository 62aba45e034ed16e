// The RTCP packet types PolyVoice speaks (RFC 3550 §6.4–6.6).

/// Sender report (PT 200).
public struct RTCPSenderReport: Sendable, Equatable {
    public var ssrc: UInt32
    public var ntpTimestamp: NTPTimestamp
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]

    public init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [RTCPReportBlock] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }
}

/// Receiver report (PT 201).
public struct RTCPReceiverReport: Sendable, Equatable {
    public var ssrc: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }
}

/// Source description (PT 202): one chunk per source; PolyVoice sends CNAME only.
public struct RTCPSourceDescription: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        /// SDES item type (1 = CNAME, 2 = NAME, … 8 = PRIV).
        public var type: UInt8
        public var value: [UInt8]

        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        public static let cnameType: UInt8 = 1

        public static func cname(_ name: String) -> Item { Item(type: cnameType, value: Array(name.utf8.prefix(255))) }
    }

    public struct Chunk: Sendable, Equatable {
        public var ssrc: UInt32
        public var items: [Item]

        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The CNAME item as text, if present.
        public var cname: String? {
            items.first { $0.type == Item.cnameType }.map { String(decoding: $0.value, as: UTF8.self) }
        }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The usual single chunk: our SSRC and CNAME.
    public init(ssrc: UInt32, cname: String) { chunks = [Chunk(ssrc: ssrc, items: [.cname(cname)])] }
}

/// Goodbye (PT 203).
public struct RTCPGoodbye: Sendable, Equatable {
    public var ssrcs: [UInt32]
    /// Optional reason, at most 255 bytes of UTF-8.
    public var reason: String?

    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }
}

/// One packet of an RTCP compound datagram. Other packet types are skipped when parsing.
public enum RTCPPacket: Sendable, Equatable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case goodbye(RTCPGoodbye)

    /// RTCP packet type numbers (RFC 3550 §12.1).
    public enum PacketType {
        public static let senderReport: UInt8 = 200
        public static let receiverReport: UInt8 = 201
        public static let sourceDescription: UInt8 = 202
        public static let goodbye: UInt8 = 203
    }
}
