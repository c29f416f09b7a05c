import ArgumentParser
import TraitBridgeStore

/// `traitbridge matter show|reset`: the Matter bridge's identity and fabrics as the registry keeps them.
struct MatterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matter",
        abstract: "Show the Matter bridge's pairing codes and fabrics, or forget its fabrics.",
        discussion: """
            serve's matterBridge section makes the bridge a Matter device (an On/Off Light standing for one \
            device); its setup identity (passcode, discriminator) and the fabrics that commissioned it (their \
            certificates and operational keys) are kept in the registry. These commands read and change them \
            there: give them serve's --data-dir.

            Examples:
              traitbridge matter show
              traitbridge matter reset --data-dir /var/lib/traitbridge
            """,
        subcommands: [MatterShowCommand.self, MatterResetCommand.self]
    )

    /// The registry's state, checked; nil (said why) when there is none yet.
    static func state(in store: DeviceStore) throws -> MatterBridgeState? {
        let record: MatterBridgeRecord?
        do { record = try store.matterBridge() } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        guard let record else {
            printError("no Matter bridge state in this registry yet: serve with a matterBridge section makes one")
            return nil
        }
        do { return try MatterBridgeState(record: record) } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
