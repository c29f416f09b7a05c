import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction

/// A commissioning window an administrator opened (Administrator Commissioning, Core §11.19): the
/// PASE verifier, salt and iterations it gave, the discriminator to announce, until when, and who
/// opened it. It exists so a second controller can join (multi-admin) without the device's own
/// passcode. Printing shows no verifier or salt.
public struct CommissioningWindow: Sendable, Hashable, CustomStringConvertible {
    /// w0 ‖ L, 97 bytes.
    public let verifier: [UInt8]
    public let salt: [UInt8]
    public let iterations: Int
    public let discriminator: UInt16
    public let deadline: ContinuousClock.Instant
    public let adminFabricIndex: UInt8
    public let adminVendorID: UInt16

    public var description: String {
        "CommissioningWindow(discriminator \(discriminator), opened by fabric \(adminFabricIndex))"
    }
}

/// Administrator Commissioning (0x003C, enhanced windows only) and General Diagnostics (0x0033): what
/// a Root Node must have beside commissioning.
extension RootEndpoint {
    /// Administrator Commissioning's cluster-specific statuses (§11.19.6.1).
    enum AdministratorStatus: UInt8 {
        case busy = 2
        case pakeParameterError, windowNotOpen
    }

    var administratorCommissioning: [UInt32: TLVValue] {
        let window = state.window
        return [
            0x0000: .unsigned(window == nil ? 0 : 1),
            0x0001: window.map { .unsigned(UInt64($0.adminFabricIndex)) } ?? .null,
            0x0002: window.map { .unsigned(UInt64($0.adminVendorID)) } ?? .null,
        ]
    }

    /// One Ethernet interface, operational; no reboot counted yet; test event triggers off.
    var generalDiagnostics: [UInt32: TLVValue] {
        [
            0x0000: .array([
                .contextStructure([
                    0: .string("eth0"), 1: .bool(true), 2: .null, 3: .null, 4: .octets([0, 0, 0, 0, 0, 0]),
                    5: .array([]), 6: .array([]), 7: .unsigned(2),
                ])
            ]),
            0x0001: .unsigned(0),
            0x0008: .bool(false),
        ]
    }

    /// OpenCommissioningWindow (0x00) and RevokeCommissioning (0x02).
    mutating func administratorCommissioning(
        _ command: UInt32, _ fields: Fields, _ context: CommandContext
    ) throws(StatusCode) -> InvokeResult {
        state.advance(to: context.now)
        if command == 0x02 {
            guard state.window != nil else { return .clusterStatus(AdministratorStatus.windowNotOpen.rawValue) }
            state.closeWindow()
            return .status(.success)
        }
        let timeout = try fields.uint(0, as: UInt16.self)
        let verifier = try fields.octets(1, maxBytes: 97)
        let discriminator = try fields.uint(2, as: UInt16.self)
        let iterations = try fields.uint(3, as: UInt32.self)
        let salt = try fields.octets(4, maxBytes: 32)
        guard (180...900).contains(timeout), discriminator <= 0x0FFF, (1000...100_000).contains(iterations),
            salt.count >= 16
        else { throw .invalidCommand }
        guard state.window == nil, state.failSafe == nil else {
            return .clusterStatus(AdministratorStatus.busy.rawValue)
        }
        guard verifier.count == 97, let fabric = state.fabric(context.fabricIndex) else {
            return .clusterStatus(AdministratorStatus.pakeParameterError.rawValue)
        }
        state.openWindow(
            CommissioningWindow(
                verifier: verifier, salt: salt, iterations: Int(iterations), discriminator: discriminator,
                deadline: context.now + .seconds(Int(timeout)), adminFabricIndex: fabric.index,
                adminVendorID: fabric.vendorID))
        return .status(.success)
    }

    /// TestEventTrigger (0x00: no enable key is configured, so CONSTRAINT_ERROR, as the spec says for a
    /// key that does not match) and TimeSnapshot (0x01: milliseconds since the device started).
    func generalDiagnostics(_ command: UInt32, _ fields: Fields, _ context: CommandContext) throws(StatusCode)
        -> InvokeResult
    {
        guard command == 0x01 else {
            _ = try fields.octets(0, maxBytes: 16)
            _ = try fields.uint(1, as: UInt64.self)
            throw .constraintError
        }
        let (seconds, attoseconds) = (context.now - information.started).components
        let milliseconds =
            UInt64(clamping: max(0, seconds)) &* 1000 &+ UInt64(clamping: attoseconds / 1_000_000_000_000_000)
        return .response(commandID: 0x02, fields: .contextStructure([0: .unsigned(milliseconds), 1: .null]))
    }
}

extension CommissioningState {
    /// An administrator's window opens: PASE is answered with its verifier until its deadline.
    public mutating func openWindow(_ window: CommissioningWindow) {
        self.window = window
        notices.append(.windowOpened(window))
    }

    /// The window closes (revoked, timed out or used): PASE is no longer answered.
    public mutating func closeWindow() {
        guard window != nil else { return }
        window = nil
        notices.append(.windowClosed)
    }
}
