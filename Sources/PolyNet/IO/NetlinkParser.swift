// Parses rtnetlink address and link notifications (RFC 3549 framing) without trusting any length.
import PolyCore

/// A change the kernel reported on its route netlink socket.
public enum NetworkChange: Sendable, Equatable {
    case addressAdded(InterfaceAddress)
    case addressRemoved(InterfaceAddress)
    /// An interface appeared or changed state.
    case linkChanged(interfaceIndex: UInt32, name: String?, isUp: Bool)
    case linkRemoved(interfaceIndex: UInt32, name: String?)
    /// The kernel dropped notifications (socket buffer overrun): re-enumerate with `LocalAddresses`.
    case eventsLost
}

/// Why a netlink datagram was refused.
public enum NetlinkParseError: Error, Equatable, Sendable {
    case truncated(at: Int)
    /// A message or attribute length that is too small or runs past its container.
    case badLength(Int, at: Int)
    /// An address attribute whose size does not fit its family.
    case badAddress(at: Int)
}

/// Decodes the messages of one netlink datagram. Netlink integers are in host byte order.
public enum NetlinkParser {
    static let headerLength = 16
    static let newLink: UInt16 = 16
    static let deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20
    static let deleteAddress: UInt16 = 21
    static let done: UInt16 = 3

    /// The changes in `datagram`, in order; other message types are skipped.
    public static func parse(_ datagram: [UInt8]) throws(NetlinkParseError) -> [NetworkChange] {
        var changes: [NetworkChange] = []
        var offset = 0
        while datagram.count - offset >= headerLength {
            var header = HostEndianReader(datagram[offset...])
            let length = Int(try header.uint32())
            let type = try header.uint16()
            guard length >= headerLength, length <= datagram.count - offset else {
                throw .badLength(length, at: offset)
            }
            let payload = datagram[(offset + headerLength)..<(offset + length)]
            switch type {
            case newAddress, deleteAddress:
                if let address = try parseAddress(payload) {
                    changes.append(type == newAddress ? .addressAdded(address) : .addressRemoved(address))
                }
            case newLink, deleteLink:
                let (index, name, isUp) = try parseLink(payload)
                changes.append(
                    type == newLink
                        ? .linkChanged(interfaceIndex: index, name: name, isUp: isUp)
                        : .linkRemoved(interfaceIndex: index, name: name))
            case done:
                return changes
            default:
                break
            }
            offset += align(length)
        }
        guard offset >= datagram.count else { throw .truncated(at: offset) }
        return changes
    }

    /// ifaddrmsg (family, prefix length, flags, scope, index) then attributes; nil for other families.
    static func parseAddress(_ payload: ArraySlice<UInt8>) throws(NetlinkParseError) -> InterfaceAddress? {
        var reader = HostEndianReader(payload)
        let family = try reader.uint8()
        let prefix = try reader.uint8()
        try reader.skip(2)
        let index = try reader.uint32()
        let size: Int
        switch family {
        case 2: size = 4  // AF_INET
        case 10: size = 16  // AF_INET6
        default: return nil
        }
        var local: IPAddress?
        var address: IPAddress?
        var label: String?
        for attribute in try attributes(reader.rest) {
            switch attribute.type {
            case 1, 2:  // IFA_ADDRESS, IFA_LOCAL (IFA_LOCAL is ours on point-to-point links)
                guard attribute.value.count == size, let ip = IPAddress(bytes: Array(attribute.value)) else {
                    throw .badAddress(at: attribute.offset)
                }
                if attribute.type == 2 { local = ip } else { address = ip }
            case 3:  // IFA_LABEL
                label = string(attribute.value)
            default:
                break
            }
        }
        guard let ip = local ?? address else { return nil }
        return InterfaceAddress(ip: ip, prefixLength: prefix, interfaceIndex: index, interfaceName: label)
    }

    /// ifinfomsg (family, pad, type, index, flags, change) then attributes.
    static func parseLink(_ payload: ArraySlice<UInt8>) throws(NetlinkParseError) -> (UInt32, String?, Bool) {
        var reader = HostEndianReader(payload)
        try reader.skip(4)
        let index = try reader.uint32()
        let flags = try reader.uint32()
        try reader.skip(4)
        var name: String?
        for attribute in try attributes(reader.rest) where attribute.type == 3 {  // IFLA_IFNAME
            name = string(attribute.value)
        }
        return (index, name, flags & 0x1 != 0)  // IFF_UP
    }

    struct Attribute {
        var type: UInt16
        var value: ArraySlice<UInt8>
        var offset: Int
    }

    /// rtattr list: length (header included), type, value, each padded to 4 bytes.
    static func attributes(_ bytes: ArraySlice<UInt8>) throws(NetlinkParseError) -> [Attribute] {
        var result: [Attribute] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 4 {
            var reader = HostEndianReader(bytes[offset...])
            let length = Int(try reader.uint16())
            let type = try reader.uint16()
            guard length >= 4, length <= bytes.endIndex - offset else { throw .badLength(length, at: offset) }
            // The top two type bits are NLA_F_NESTED / NLA_F_NET_BYTEORDER flags.
            result.append(
                Attribute(type: type & 0x3FFF, value: bytes[(offset + 4)..<(offset + length)], offset: offset))
            offset += align(length)
        }
        guard offset >= bytes.endIndex else { throw .truncated(at: offset) }
        return result
    }

    private static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    private static func string(_ value: ArraySlice<UInt8>) -> String {
        String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// ByteReader with netlink's host byte order and parse errors.
private struct HostEndianReader {
    private var reader: ByteReader<ArraySlice<UInt8>>

    init(_ bytes: ArraySlice<UInt8>) { reader = ByteReader(bytes) }

    var rest: ArraySlice<UInt8> { reader.bytes[reader.position..<reader.end] }

    mutating func uint8() throws(NetlinkParseError) -> UInt8 {
        do { return try reader.readUInt8() } catch { throw .truncated(at: reader.position) }
    }

    // ByteReader assembles big-endian values; UInt16(bigEndian:) turns that into host order either way.
    mutating func uint16() throws(NetlinkParseError) -> UInt16 {
        do { return UInt16(bigEndian: try reader.readUInt16()) } catch { throw .truncated(at: reader.position) }
    }

    mutating func uint32() throws(NetlinkParseError) -> UInt32 {
        do { return UInt32(bigEndian: try reader.readUInt32()) } catch { throw .truncated(at: reader.position) }
    }

    mutating func skip(_ count: Int) throws(NetlinkParseError) {
        do { try reader.skip(count) } catch { throw .truncated(at: reader.position) }
    }
}
