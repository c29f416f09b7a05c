import ArgumentParser
import Foundation
import TraitBridgeJSON

#if canImport(Glibc)
    import Glibc
#endif

/// `--ack` and `--pin`: the user's answer when a partner cloud asks for a confirmation or a PIN
/// before it runs a command (Google's secondary user verification). Without them, a terminal
/// is asked; anything else is told which flag to add.
struct ChallengeOptions: ParsableArguments {
    @Flag(help: "Confirm a command the partner cloud asks the user to confirm (ackNeeded).")
    var ack = false
    @Option(
        help: ArgumentHelp(
            "The PIN a partner cloud asks for (pinNeeded); others can see it in the process list, "
                + "so leave it out to be asked at a terminal."))
    var pin: String?

    /// The `challenge` object for the command, if a flag gave one.
    var challenge: JSONValue? {
        if let pin { return ["pin": .string(pin)] }
        return ack ? ["ack": true] : nil
    }

    /// Asks the terminal for the answer to `type` (`ackNeeded`, `pinNeeded`,
    /// `challengeFailedPinNeeded`); `nil` when there is no terminal or the user declines.
    static func ask(_ type: String, what: String) -> JSONValue? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        if type == "ackNeeded" {
            FileHandle.standardError.write(Data("\(what): the partner asks you to confirm. Go ahead? [y/N] ".utf8))
            guard let line = readLine(), ["y", "yes"].contains(line.lowercased()) else { return nil }
            return ["ack": true]
        }
        let prompt = type == "challengeFailedPinNeeded" ? "Wrong PIN; PIN for \(what): " : "PIN for \(what): "
        guard let pin = readSecret(prompt), !pin.isEmpty else { return nil }
        return ["pin": .string(pin)]
    }

    /// A line from the terminal with echo off (restored after), prompted on standard error.
    /// Unlike getpass(3), what was typed ahead is kept, not flushed.
    static func readSecret(_ prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if hasTerminal { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}
