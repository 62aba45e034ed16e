// `a=candidate` (RFC 8839 §5.1) to and from `Candidate`.

extension Candidate {
    /// Parses the value of an `a=candidate:` attribute (without the `candidate:` prefix).
    /// Returns nil when malformed; `unresolvable` is set instead when the address is a host name
    /// (e.g. an mDNS `.local` name), which the agent cannot use but the SDP keeps.
    public init?(sdpValue: String) {
        var unused = false
        self.init(sdpValue: sdpValue, unresolvable: &unused)
    }

    init?(sdpValue: String, unresolvable: inout Bool) {
        let fields = sdpValue.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 8, fields[6] == "typ", !fields[0].isEmpty, fields[0].count <= 32,
            let component = Int(fields[1]), (1...256).contains(component), let priority = UInt32(fields[3]),
            let port = UInt16(fields[5]), let kind = Kind(rawValue: fields[7])
        else { return nil }
        var related: (ip: IPAddress?, port: UInt16?) = (nil, nil)
        var extensions: [Extension] = []
        var index = 8
        while index < fields.count {
            guard index + 1 < fields.count else { return nil }  // extensions come as name/value pairs
            let (name, value) = (fields[index], fields[index + 1])
            switch name {
            case "raddr": related.ip = IPAddress(value)
            case "rport":
                guard let port = UInt16(value) else { return nil }
                related.port = port
            default: extensions.append(Extension(name: name, value: value))
            }
            index += 2
        }
        guard let ip = IPAddress(fields[4]) else {
            unresolvable = true
            return nil
        }
        var relatedAddress: TransportAddress?
        if let relatedIP = related.ip, let relatedPort = related.port {
            relatedAddress = TransportAddress(ip: relatedIP, port: relatedPort)
        }
        self.init(
            foundation: fields[0], component: component, transport: fields[2].lowercased(), priority: priority,
            address: TransportAddress(ip: ip, port: port), kind: kind, relatedAddress: relatedAddress,
            extensions: extensions)
    }

    /// The value for `a=candidate:` (RFC 8839 grammar; `raddr`/`rport` for non-host candidates).
    public var sdpValue: String {
        var text =
            "\(foundation) \(component) \(transport) \(priority) \(address.ip) \(address.port) typ \(kind.rawValue)"
        if let relatedAddress {
            text += " raddr \(relatedAddress.ip) rport \(relatedAddress.port)"
        } else if kind != .host {
            text += " raddr 0.0.0.0 rport 0"
        }
        for item in extensions { text += " \(item.name) \(item.value)" }
        return text
    }
}
