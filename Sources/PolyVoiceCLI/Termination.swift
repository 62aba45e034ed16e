// Waiting for Ctrl-C / SIGTERM in long-running commands (bridge, impair).
import Foundation

/// Blocks until SIGINT or SIGTERM arrives, or until `seconds` have passed if given.
func waitForTermination(orSeconds seconds: Double? = nil) {
    let done = DispatchSemaphore(value: 0)
    let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { done.signal() }
        source.resume()
        return source
    }
    if let seconds {
        _ = done.wait(timeout: .now() + seconds)
    } else {
        done.wait()
    }
    for source in sources { source.cancel() }
}
