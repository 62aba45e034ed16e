// Commands posted from any thread and drained on a libwebsockets service thread.
import Synchronization

final class CommandInbox<Command: Sendable>: Sendable {
    private let commands = Mutex<[Command]>([])

    func post(_ command: Command) { commands.withLock { $0.append(command) } }

    /// Everything posted so far, oldest first; the inbox is empty afterwards.
    func drain() -> [Command] {
        commands.withLock { commands in
            defer { commands = [] }
            return commands
        }
    }
}
