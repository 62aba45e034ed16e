// The agent's voice (or any sink audio) recorded to a 48 kHz mono 16-bit WAV file as it arrives.
import Foundation

/// Writes 48 kHz mono 16-bit WAV, streaming: samples go straight to the file; `close` fills in the
/// header's sizes. Thread safety: use from one thread at a time (the pacing thread).
public final class WAVFileSink: AudioFrameSink, @unchecked Sendable {
    public let url: URL
    public let name: String
    private var descriptor: Int32
    private var dataBytes = 0
    /// Not seekable (a pipe): the header keeps its unknown-length sizes.
    private var streaming = false
    /// The first write error, if any; later samples are dropped.
    public private(set) var error: WAVError?
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
        if !header.withUnsafeBytes({ writeAll($0) }) {
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
        guard descriptor >= 0, error == nil else { return }
        var offset = 0
        while offset < samples.count {
            let count = min(staging.count, samples.count - offset)
            for index in 0..<count { staging[index] = samples[offset + index].littleEndian }
            guard writeAll(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(staging)[..<(count * 2)])) else {
                return
            }
            dataBytes += count * 2
            offset += count
        }
    }

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
        if pwrite(descriptor, &little, 4, off_t(offset)) != 4, error == nil {
            error = WAVError(file: url.path, problem: .io(String(cString: strerror(errno))))
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let result = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                error = WAVError(file: url.path, problem: .io(String(cString: strerror(errno))))
                return false
            }
            done += result
        }
        return true
    }
}
