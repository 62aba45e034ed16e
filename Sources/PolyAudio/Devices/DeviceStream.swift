// One open PortAudio stream on one device in one direction, with the 48 kHz ↔ device-rate conversion
// done on the pacing thread (outside the real-time callback).
import CPortAudio

final class DeviceStream: @unchecked Sendable {
    let device: AudioDeviceInfo
    let direction: AudioDirection
    /// The device's native rate, which the stream runs at.
    let rate: Int
    let context: CallbackContext
    private var stream: UnsafeMutableRawPointer?
    private let resampler: Resampler?
    /// Device-rate samples on their way to/from the resampler.
    private let deviceScratch: UnsafeMutableBufferPointer<Int16>
    /// Capture: 48 kHz samples converted but not yet read.
    private let staged: UnsafeMutableBufferPointer<Int16>
    private var stagedCount = 0
    /// Latency bound of the device ring: beyond it, capture drops the oldest and playback the newest.
    private let latencyLimit: Int

    /// Opens and starts the stream (mono when the device accepts it, else stereo).
    init(device: AudioDeviceInfo, direction: AudioDirection, counters: DeviceCounters) throws(AudioDeviceError) {
        // PortAudio stays initialised (no device rescan) while this stream exists; `deinit` releases it.
        try PortAudioRuntime.retainStream()
        self.device = device
        self.direction = direction
        rate = max(8000, Int(device.defaultSampleRate.rounded()))
        let maxChannels = direction == .input ? device.maxInputChannels : device.maxOutputChannels
        guard maxChannels > 0 else {
            PortAudioRuntime.releaseStream()
            throw .notFound(query: device.name, direction: direction, available: [])
        }
        latencyLimit = rate / 5  // 200 ms
        let channels = maxChannels >= 2 && !Self.acceptsMono(device, direction, rate: rate) ? 2 : 1
        context = CallbackContext(ring: SPSCRingBuffer(capacity: rate / 2), channels: channels, counters: counters)
        deviceScratch = .allocate(capacity: rate / 10)
        staged = .allocate(capacity: AudioFrameFormat.sampleRate / 10)
        do {
            resampler =
                rate == AudioFrameFormat.sampleRate
                ? nil
                : direction == .input
                    ? try Resampler(from: rate, to: AudioFrameFormat.sampleRate, quality: 3)
                    : try Resampler(from: AudioFrameFormat.sampleRate, to: rate, quality: 3)
        } catch {
            deviceScratch.deallocate()
            staged.deallocate()
            PortAudioRuntime.releaseStream()
            throw .portAudio(operation: "resampler", device: device.name, message: error.message)
        }
        // Every property is set here, so a throw from `open` still runs `deinit` (which frees the buffers).
        try open()
    }

    deinit {
        close()
        deviceScratch.deallocate()
        staged.deallocate()
        PortAudioRuntime.releaseStream()
    }

    private static func parameters(_ device: AudioDeviceInfo, _ direction: AudioDirection, channels: Int)
        -> PaStreamParameters
    {
        let info = Pa_GetDeviceInfo(PaDeviceIndex(device.id))
        let latency =
            direction == .input ? info?.pointee.defaultLowInputLatency : info?.pointee.defaultLowOutputLatency
        return PaStreamParameters(
            device: PaDeviceIndex(device.id), channelCount: Int32(channels), sampleFormat: PaSampleFormat(paInt16),
            suggestedLatency: latency ?? 0.02, hostApiSpecificStreamInfo: nil)
    }

    /// Whether the device opens in mono (ALSA `plug`/`pulse` devices do; some raw `hw` ones do not).
    private static func acceptsMono(_ device: AudioDeviceInfo, _ direction: AudioDirection, rate: Int) -> Bool {
        var mono = parameters(device, direction, channels: 1)
        let result = withUnsafePointer(to: &mono) { pointer in
            direction == .input
                ? Pa_IsFormatSupported(pointer, nil, Double(rate)) : Pa_IsFormatSupported(nil, pointer, Double(rate))
        }
        return result == paFormatIsSupported
    }

    private func open() throws(AudioDeviceError) {
        var parameters = Self.parameters(device, direction, channels: context.channels)
        // The stream holds `context` through this raw pointer; `self` keeps it alive until `close`.
        let userData = Unmanaged.passUnretained(context).toOpaque()
        var handle: UnsafeMutableRawPointer?
        let result = withUnsafePointer(to: &parameters) { pointer in
            direction == .input
                ? Pa_OpenStream(
                    &handle, pointer, nil, Double(rate), UInt(rate / 50), PaStreamFlags(paNoFlag),
                    captureCallback, userData)
                : Pa_OpenStream(
                    &handle, nil, pointer, Double(rate), UInt(rate / 50), PaStreamFlags(paNoFlag),
                    playbackCallback, userData)
        }
        guard result == paNoError.rawValue, let handle else {
            throw .portAudio(
                operation: "open \(direction)", device: device.name, message: PortAudioRuntime.message(result))
        }
        Pa_SetStreamFinishedCallback(handle, finishedCallback)
        let started = Pa_StartStream(handle)
        guard started == paNoError.rawValue else {
            Pa_CloseStream(handle)
            throw .portAudio(
                operation: "start \(direction)", device: device.name, message: PortAudioRuntime.message(started))
        }
        stream = handle
    }

    /// PortAudio says the stream is running.
    var isActive: Bool {
        guard let stream else { return false }
        return Pa_IsStreamActive(stream) == 1 && !context.finished.isRaised
    }

    /// Stops (dropping what is queued) and closes the stream. Idempotent.
    func close() {
        guard let stream else { return }
        self.stream = nil
        Pa_AbortStream(stream)
        Pa_CloseStream(stream)
    }

    /// Capture: fills `buffer` with 48 kHz audio; returns how many samples are real (the rest silence).
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let ring = context.ring
        // Keep capture latency bounded if the pacing thread ever fell behind the device clock.
        if ring.availableToRead > latencyLimit {
            let dropped = ring.discard(ring.availableToRead - latencyLimit / 4)
            context.counters.overruns.add(dropped, ordering: .relaxed)
        }
        while stagedCount < buffer.count {
            let missing = buffer.count - stagedCount
            let wanted = min(deviceScratch.count, (missing * rate + 47999) / 48000)
            let got = ring.read(into: UnsafeMutableBufferPointer(rebasing: deviceScratch[..<wanted]))
            guard got > 0 else { break }
            let room = UnsafeMutableBufferPointer(rebasing: staged[stagedCount...])
            let input = UnsafeBufferPointer(rebasing: deviceScratch[..<got])
            if let resampler {
                stagedCount += resampler.process(input, into: room).produced
            } else {
                room.baseAddress!.update(from: input.baseAddress!, count: got)
                stagedCount += got
            }
        }
        let count = min(stagedCount, buffer.count)
        if count > 0 { buffer.baseAddress!.update(from: staged.baseAddress!, count: count) }
        stagedCount -= count
        if stagedCount > 0 { staged.baseAddress!.update(from: staged.baseAddress! + count, count: stagedCount) }
        if count < buffer.count {
            buffer.silence(from: count)
            context.counters.underruns.add(1, ordering: .relaxed)
        }
        return count
    }

    /// Playback: queues 48 kHz samples for the device.
    func write(_ samples: UnsafeBufferPointer<Int16>) {
        let ring = context.ring
        var offset = 0
        while offset < samples.count {
            let count = min(samples.count - offset, AudioFrameFormat.samplesPerFrame)
            let input = UnsafeBufferPointer(rebasing: samples[offset..<(offset + count)])
            let produced: Int
            if let resampler {
                produced = resampler.process(input, into: deviceScratch).produced
            } else {
                deviceScratch.baseAddress!.update(from: input.baseAddress!, count: count)
                produced = count
            }
            // Keep playout latency bounded if the pacing thread runs ahead of the device clock.
            let written =
                ring.availableToRead > latencyLimit
                ? 0 : ring.write(UnsafeBufferPointer(rebasing: deviceScratch[..<produced]))
            if written < produced { context.counters.overruns.add(produced - written, ordering: .relaxed) }
            offset += count
        }
    }
}
