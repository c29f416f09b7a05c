import ArgumentParser
import TraitBridgeStore

/// `traitbridge matter show|reset`: the Matter bridge's identity and fabrics as the registry keeps them.
struct MatterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matter",
        abstract: "Show the Matter bridge's pairing codes and fabrics, or forget its fabrics.",
        discussion: """
            serve's matterBridge section makes the bridge a Matter bridge (each offered device a bridged \
            endpoint; past devicesPerBridge, more bridges, each commissioned on its own); each bridge's setup \
            identity (passcode, discriminator), the fabrics that commissioned it (their certificates and \
            operational keys) and its endpoints are kept in the registry. These commands read and change them \
            there: give them serve's --data-dir.

            Examples:
              traitbridge matter show
              traitbridge matter reset --data-dir /var/lib/traitbridge
            """,
        subcommands: [MatterShowCommand.self, MatterResetCommand.self]
    )

    /// Bridge `bridge`'s state in the registry, checked; nil (said why) when there is none yet.
    static func state(in store: DeviceStore, bridge: Int = 1) throws -> MatterBridgeState? {
        let record: MatterBridgeRecord?
        do { record = try store.matterBridge(bridge) } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        guard let record else {
            printError(
                bridge == 1
                    ? "no Matter bridge state in this registry yet: serve with a matterBridge section makes one"
                    : "no Matter bridge \(bridge) in this registry: serve makes one when bridge \(bridge - 1) is full")
            return nil
        }
        do { return try MatterBridgeState(record: record) } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }

    /// The bridges a command acts on: `only`, checked, or every bridge the registry keeps (1 when none).
    static func bridges(in store: DeviceStore, only: Int?) throws -> [Int] {
        if let only {
            guard DeviceStore.matterBridgeRange.contains(only) else {
                printError("--bridge: expected a bridge number from 1 to \(DeviceStore.matterBridgeRange.upperBound)")
                throw ExitCode.validationFailure
            }
            return [only]
        }
        do {
            let numbers = try store.matterBridgeNumbers()
            return numbers.isEmpty ? [1] : numbers
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
