import Foundation
import Synchronization

/// Colour and progress only where a person reads them: on a terminal, and never when `NO_COLOR`
/// is set (https://no-color.org). Pipes and files get plain text.
struct TerminalStyle: Sendable {
    let isColored: Bool
    let isTerminal: Bool

    static let standardOutput = TerminalStyle(descriptor: 1)
    static let standardError = TerminalStyle(descriptor: 2)

    init(descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) {
        isTerminal = isatty(descriptor) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        isColored = isTerminal && !noColor && environment["TERM"] != "dumb"
    }

    init(isColored: Bool, isTerminal: Bool) {
        self.isColored = isColored
        self.isTerminal = isTerminal
    }

    private func wrap(_ text: String, _ code: String) -> String { isColored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }

    /// A connectivity state in the colour of its meaning.
    func connectivity(_ text: String) -> String {
        switch text {
        case "online": wrap(text, "32")
        case "partiallyOnline": wrap(text, "33")
        case "offline": wrap(text, "31")
        default: wrap(text, "2")
        }
    }

    /// A progress line that rewrites itself on a terminal (`\r`); elsewhere nothing is printed.
    func progress(_ text: String) {
        guard isTerminal else { return }
        FileHandleWriter.write("\r\u{1B}[2K" + text, to: 2)
    }

    func endProgress() {
        guard isTerminal else { return }
        FileHandleWriter.write("\r\u{1B}[2K", to: 2)
    }
}

/// Ctrl-C (SIGINT) and SIGTERM for the commands that run until interrupted (`watch`, `simulate`,
/// `demo`): the loop sees the request and returns, so everything started is stopped in order.
enum Interruption {
    private static let requested = Atomic<Bool>(false)

    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Installs the handlers (idempotent).
    static func install() {
        signal(SIGINT) { _ in Interruption.requested.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in Interruption.requested.store(true, ordering: .relaxed) }
    }
}
