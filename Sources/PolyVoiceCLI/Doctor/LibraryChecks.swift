// The C libraries the call depends on load and start: Opus, libsrtp2, OpenSSL, libwebsockets, PortAudio.
import COpenSSL
import COpus
import CPortAudio
import CSRTP
import CWebSockets
import PolyAudio

enum LibraryChecks {
    static let group = "Libraries"
    static let install = "install the Debian packages: bash scripts/setup.sh (or make setup)"

    static func all() -> [DoctorCheck] {
        [opus(), srtp(), openSSL(), webSockets(), portAudio()]
    }

    static func opus() -> DoctorCheck {
        let version = String(cString: opus_get_version_string())
        do {
            _ = try OpusEncoder(OpusEncoderSettings())
            _ = try OpusDecoder()
            return .pass(group, "Opus", version)
        } catch {
            return .problem(group, "Opus", required: true, "\(version): \(error)", fix: install)
        }
    }

    static func srtp() -> DoctorCheck {
        let version = String(cString: srtp_get_version_string())
        let status = srtp_init()
        guard status == srtp_err_status_ok else {
            return .problem(
                group, "libsrtp2", required: true, "\(version): srtp_init failed (\(status.rawValue))", fix: install)
        }
        return .pass(group, "libsrtp2", "\(version), initialised")
    }

    static func openSSL() -> DoctorCheck {
        let version = String(cString: OpenSSL_version(OPENSSL_VERSION))
        guard OpenSSL_version_num() >= 0x3000_0000 else {
            return .problem(group, "OpenSSL", required: true, "\(version): 3.0 or newer needed", fix: install)
        }
        return .pass(group, "OpenSSL", version)
    }

    static func webSockets() -> DoctorCheck {
        .pass(group, "libwebsockets", String(cString: lws_get_library_version()))
    }

    static func portAudio() -> DoctorCheck {
        let version = String(cString: Pa_GetVersionText())
        do {
            _ = try AudioDevices.list()  // initialises PortAudio once, quietly
            return .pass(group, "PortAudio", version)
        } catch {
            return .problem(group, "PortAudio", required: true, "\(version): \(error)", fix: install)
        }
    }
}
