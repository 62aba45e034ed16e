// The one place the version is written: `--version`, the man pages and `make package`'s Debian version
// (scripts/package.sh reads it from the built binary) all take it from here.
import CBuildInfo
import COpenSSL
import COpus
import CPortAudio
import CSRTP
import CWebSockets

enum Version {
    static let number = "0.1.0"

    /// The git commit `make package` built from, or "unknown" for development builds.
    static var commit: String { String(cString: polyvoice_build_commit()) }

    /// The C libraries linked at run time, as each reports itself (the Debian package's, not the headers').
    static var libraries: [(name: String, version: String)] {
        [
            ("libopus", String(cString: opus_get_version_string())),
            ("libsrtp2", String(cString: srtp_get_version_string())),
            ("OpenSSL", String(cString: OpenSSL_version(OPENSSL_VERSION))),
            ("libwebsockets", String(cString: lws_get_library_version())),
            ("PortAudio", String(cString: Pa_GetVersionText())),
        ]
    }

    /// What `polyvoice --version` prints: the first line alone is what scripts read.
    static var report: String {
        // Most libraries start their string with their own name: say it once.
        let linked = libraries.map { library in
            let version =
                library.version.hasPrefix(library.name + " ")
                ? String(library.version.dropFirst(library.name.count + 1)) : library.version
            return "\(library.name): \(version)"
        }
        return (["polyvoice \(number)", "commit: \(commit)"] + linked)
            .joined(separator: "\n")
    }
}
