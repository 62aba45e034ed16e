// The agent's voice (or any sink audio) recorded to a 48 kHz mono 16-bit WAV file as it arrives.
import FoundationEssentials
import Glibc
import PolyCore
import Synchronization

/// Writes 48 kHz mono 16-bit WAV, streaming: samples go straight to the file; `close` fills in the
/// header's sizes. Thread safety: `write` and `close` from one thread at a time (the pacing thread);
/// `error` from any thread.
///
/// When a write fails (the disk is full, a quota, an I/O error) recording stops there: the file is cut
/// back to the last whole sample written, later samples are dropped, and `close` still fills in the
/// header, so what was written is a valid WAV. The first error is kept in `error`.
public final class WAVFileSink: AudioFrameSink, @unchecked Sendable {
    public let url: URL
    public let name: String
    private var descriptor: Int32
    private var dataBytes = 0
    /// Not seekable (a pipe): the header keeps its unknown-length sizes.
    private var streaming = false
    /// The first write error, if any; later samples are dropped. Readable from any thread.
    public var error: WAVError? { failure.withLock { $0 } }
    private let failure = Mutex<WAVError?>(nil)
    /// Whether `failure` is set, for the writing thread (which then never takes the lock per frame).
    private var failed = false
    /// Little-endian staging, so `write` does not allocate.
    private let staging = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4096)

    /// Creates (or truncates) the file and writes a provisional header.
    public init(url: URL) throws(WAVError) {
        self.url = url
        self.name = "file \(url.lastPathComponent)"
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        // Every property is set here, so a throw below still runs `deinit` (which frees `staging`).
        guard descriptor >= 0 else { throw WAVError(file: url.path, problem: .io(String(cString: strerror(errno)))) }
        var header = WAVFile(sampleRate: AudioFrameFormat.sampleRate, layout: .mono, samples: .int16([])).encoded()
        // A pipe (standard output) cannot be rewound to fill in the sizes: say "unknown length" (all ones),
        // as streaming WAV writers do, and leave the header alone at close.
        streaming = lseek(descriptor, 0, SEEK_CUR) < 0
        if streaming {
            for offset in [4, 5, 6, 7, 40, 41, 42, 43] { header[offset] = 0xFF }
        }
        if header.withUnsafeBytes({ writeAll($0) }) != header.count {
            Glibc.close(descriptor)
            descriptor = -1
            throw error ?? WAVError(file: url.path, problem: .io("cannot write header"))
        }
    }

    deinit {
        close()
        staging.deallocate()
    }

    /// Samples written so far.
    public var samplesWritten: Int { dataBytes / 2 }

    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        guard descriptor >= 0, !failed else { return }
        var offset = 0
        while offset < samples.count {
            let count = min(staging.count, samples.count - offset)
            for index in 0..<count { staging[index] = samples[offset + index].littleEndian }
            let bytes = count * 2
            let written = writeAll(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(staging)[..<bytes]))
            guard written == bytes else {
                // Keep whole samples only: a short write may have left half of one.
                dataBytes += written & ~1
                if written & 1 != 0 { _ = ftruncate(descriptor, off_t(Self.headerBytes + dataBytes)) }
                return
            }
            dataBytes += bytes
            offset += count
        }
    }

    private static let headerBytes = 44

    /// Finalises the header (RIFF and data sizes) and closes the file. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        guard !streaming else {
            Glibc.close(descriptor)
            descriptor = -1
            return
        }
        patch(UInt32(truncatingIfNeeded: 36 + dataBytes), at: 4)
        patch(UInt32(truncatingIfNeeded: dataBytes), at: 40)
        Glibc.close(descriptor)
        descriptor = -1
    }

    private func patch(_ value: UInt32, at offset: Int) {
        var little = value.littleEndian
        // Rewrites bytes already on disk: needs no new block, so it works on a full disk too.
        if pwrite(descriptor, &little, 4, off_t(offset)) != 4 { fail(errno) }
    }

    /// Writes all of `bytes` unless an error stops it; returns how many were written.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Int {
        let (written, error) = FileBytes.writeAll(bytes, to: descriptor)
        if let error { fail(error) }
        return written
    }

    /// Keeps the first error (only the writing thread calls this).
    private func fail(_ code: Int32) {
        guard !failed else { return }
        failed = true
        let problem = WAVError(file: url.path, problem: .io(String(cString: strerror(code))))
        failure.withLock { $0 = problem }
    }
}
