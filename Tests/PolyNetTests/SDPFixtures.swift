// Hand-written SDP fixtures shaped like aiortc 1.16 (PLATFORM-NOTES) and Chrome output.

enum SDPFixtures {
    static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }

    /// aiortc as offerer: Opus on PT 96 without fmtp, actpass, three fingerprints, end-of-candidates.
    static let aiortcOffer = crlf(
        """
        v=0
        o=- 3913447123 3913447123 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0
        a=msid-semantic:WMS *
        m=audio 52734 UDP/TLS/RTP/SAVPF 96 0 8
        c=IN IP4 127.0.0.1
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:4b7c 9a1e
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:3356735183 cname:3c2a-4f0b
        a=rtpmap:96 opus/48000/2
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:8a3f8d8a3b 1 udp 2130706431 127.0.0.1 52734 typ host
        a=end-of-candidates
        a=ice-ufrag:LKcE
        a=ice-pwd:8oqkxJLo3cO1hYZOmGZrjX
        a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CD:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:D6:BC
        a=fingerprint:sha-384 39:4A:09:1E:0E:33:32:85:51:03:49:95:54:0B:41:09:A2:10:60:CC:39:8F:C0:C4:45:FC:37:3A:55:EA:11:74:F5:07:9C:E3:03:94:2F:D1:DE:52:AE:9E:69:8A:E2:F8
        a=fingerprint:sha-512 11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00
        a=setup:actpass

        """)

    /// A Chrome-shaped re-offer from a bridge during a pull: the mic line (recvonly from the bridge's
    /// side) and the agent's audio as a second, send-only m-line in the same BUNDLE; ice-lite; an mDNS
    /// host name and a TCP candidate that the agent cannot use but the SDP keeps.
    static let chromePullOffer = crlf(
        """
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        a=ice-lite
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        b=AS:64
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:1467250027 1 udp 2122260223 192.168.0.196 46243 typ host generation 0 network-id 1
        a=candidate:3d8e1c1b-ec5b.local 1 udp 2122194687 a1b2c3d4-1234.local 47826 typ host generation 0
        a=candidate:435653019 1 tcp 1845501695 192.168.0.196 9 typ host tcptype active generation 0
        a=candidate:842163049 1 udp 1677729535 203.0.113.9 46243 typ srflx raddr 192.168.0.196 rport 46243 generation 0 network-cost 999
        a=end-of-candidates
        a=ice-ufrag:Q2vX
        a=ice-pwd:bQ6/j3x0eR1n7mXyq8JqD0vh
        a=ice-options:trickle renomination
        a=fingerprint:sha-256 D4:1F:0A:6C:7E:21:93:0B:66:C8:5A:12:F3:8E:AB:44:0C:71:9D:E2:53:88:B0:1A:37:C5:6E:F9:02:DB:8A:10
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2/recvonly http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=recvonly
        a=rtcp-mux
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        m=audio 9 UDP/TLS/RTP/SAVPF 109
        c=IN IP4 0.0.0.0
        a=ice-ufrag:Q2vX
        a=ice-pwd:bQ6/j3x0eR1n7mXyq8JqD0vh
        a=fingerprint:sha-256 D4:1F:0A:6C:7E:21:93:0B:66:C8:5A:12:F3:8E:AB:44:0C:71:9D:E2:53:88:B0:1A:37:C5:6E:F9:02:DB:8A:10
        a=setup:actpass
        a=mid:1
        a=sendonly
        a=msid:agent-audio agent-audio-track
        a=rtcp-mux
        a=rtpmap:109 OPUS/48000/2
        a=fmtp:109 minptime=10;useinbandfec=1;stereo=0
        a=ssrc:1001 cname:agent
        a=ssrc:1001 msid:agent-audio agent-audio-track
        a=x-polyvoice-custom:keep me
        m=video 9 UDP/TLS/RTP/SAVPF 96
        c=IN IP4 0.0.0.0
        a=mid:2
        a=recvonly
        a=rtpmap:96 VP8/90000

        """)
}
