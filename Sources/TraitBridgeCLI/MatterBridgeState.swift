import Foundation
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeStore

/// The Matter bridge's identity and commissioning state between the registry (plain numbers and
/// bytes, ``MatterBridgeRecord``) and the device (``MatterSetup``, ``CommissioningSnapshot``): what
/// `serve` starts the device from and persists, and what `matter show|reset` read and change.
/// Every stored value is checked on the way in, so a damaged registry is an error that says what
/// to do, never a trap.
struct MatterBridgeState {
    var setup: MatterSetup
    var snapshot: CommissioningSnapshot

    /// The registry's state cannot be used; the text says what is wrong and what to do.
    struct Unusable: Error, CustomStringConvertible {
        var reason: String
        var description: String {
            "the registry's Matter bridge state cannot be used (\(reason)); `traitbridge matter reset --identity` "
                + "makes a new one (controllers must commission the bridge again)"
        }
    }

    /// The vendor and product the device's attestation (the SDK's test credentials) names.
    static let vendorID = DeviceInformation().vendorID
    static let productID = DeviceInformation().productID

    /// A new identity, `passcode` and `discriminator` when given, else drawn; no fabric.
    static func fresh(passcode: UInt32? = nil, discriminator: UInt16? = nil) throws -> MatterBridgeState {
        var random = SystemRandomNumberGenerator()
        let setup = try MatterSetup(
            passcode: try passcode.map { try SetupPasscode($0) } ?? SetupPasscode.random(using: &random),
            discriminator: discriminator ?? SetupPayload.randomDiscriminator(using: &random), vendorID: vendorID,
            productID: productID, using: &random)
        return MatterBridgeState(setup: setup, snapshot: CommissioningSnapshot())
    }

    init(setup: MatterSetup, snapshot: CommissioningSnapshot) {
        self.setup = setup
        self.snapshot = snapshot
    }

    /// The state `record` keeps, checked: the passcode and discriminator as the spec allows them, the
    /// verifier derived again, every fabric restorable.
    init(record: MatterBridgeRecord) throws(Unusable) {
        do {
            var random = SystemRandomNumberGenerator()
            setup = try MatterSetup(
                passcode: try SetupPasscode(record.setup.passcode), discriminator: record.setup.discriminator,
                vendorID: Self.vendorID, productID: Self.productID, salt: record.setup.salt,
                iterations: record.setup.iterations, using: &random)
        } catch {
            throw Unusable(reason: "its setup identity: \(error)")
        }
        guard let regulatory = RegulatoryLocation(rawValue: record.regulatoryConfig) else {
            throw Unusable(reason: "regulatory config \(record.regulatoryConfig)")
        }
        snapshot = CommissioningSnapshot(
            fabrics: record.fabrics.map {
                CommissioningSnapshot.StoredFabric(
                    index: $0.index, rootCertificate: $0.rootCertificate,
                    intermediateCertificate: $0.intermediateCertificate, nodeCertificate: $0.nodeCertificate,
                    ipkEpochKey: $0.ipkEpochKey, operationalKey: $0.operationalKey, vendorID: $0.vendorID,
                    label: $0.label)
            },
            accessControl: record.accessControl.map {
                AccessControlEntry(
                    privilege: $0.privilege, authMode: $0.authMode, subjects: $0.subjects, fabricIndex: $0.fabricIndex)
            }, regulatoryConfig: regulatory, countryCode: record.countryCode)
        do { _ = try CommissioningState(restoring: snapshot) } catch { throw Unusable(reason: "\(error)") }
    }

    /// What the registry keeps.
    var record: MatterBridgeRecord {
        MatterBridgeRecord(
            setup: .init(
                passcode: setup.payload.passcode.value, discriminator: setup.payload.discriminator, salt: setup.salt,
                iterations: setup.iterations),
            regulatoryConfig: snapshot.regulatoryConfig.rawValue, countryCode: snapshot.countryCode,
            fabrics: snapshot.fabrics.map {
                MatterBridgeRecord.Fabric(
                    index: $0.index, rootCertificate: $0.rootCertificate,
                    intermediateCertificate: $0.intermediateCertificate, nodeCertificate: $0.nodeCertificate,
                    ipkEpochKey: $0.ipkEpochKey, operationalKey: $0.operationalKey, vendorID: $0.vendorID,
                    label: $0.label)
            },
            accessControl: snapshot.accessControl.map {
                MatterBridgeRecord.AccessControlEntry(
                    fabricIndex: $0.fabricIndex, privilege: $0.privilege, authMode: $0.authMode, subjects: $0.subjects)
            })
    }

    /// The registry's state with the configured passcode and discriminator (a new salt and verifier
    /// when the passcode changes), or a new one on the first start; written back when it changed.
    static func load(
        from store: DeviceStore, passcode: UInt32?, discriminator: UInt16?
    ) throws -> MatterBridgeState {
        guard let record = try store.matterBridge() else {
            let made = try fresh(passcode: passcode, discriminator: discriminator)
            try store.saveMatterBridge(made.record, now: Date())
            return made
        }
        var state = try MatterBridgeState(record: record)
        let wanted = (
            passcode ?? state.setup.payload.passcode.value, discriminator ?? state.setup.payload.discriminator
        )
        guard wanted != (state.setup.payload.passcode.value, state.setup.payload.discriminator) else { return state }
        var random = SystemRandomNumberGenerator()
        let samePasscode = wanted.0 == state.setup.payload.passcode.value
        state.setup = try MatterSetup(
            passcode: try SetupPasscode(wanted.0), discriminator: wanted.1, vendorID: vendorID, productID: productID,
            salt: samePasscode ? state.setup.salt : nil, iterations: state.setup.iterations, using: &random)
        try store.saveMatterBridge(state.record, now: Date())
        return state
    }
}
