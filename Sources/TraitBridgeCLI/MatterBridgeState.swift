import Foundation
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeStore

/// The Matter bridge's identity and commissioning state between the registry (plain numbers and
/// bytes, ``MatterBridgeRecord``) and the device (``MatterSetup``, ``NodeSnapshot``: the fabrics,
/// the CASE resumption records, NodeLabel and Location): what `serve` starts the device from and
/// persists, and what `matter show|reset` read and change. Its codes name the vendor and product
/// serve last attested as (the configured `vendorId`/`productId`, else the SDK test DAC's).
/// Every stored value is checked on the way in, so a damaged registry is an error that says what
/// to do, never a trap.
struct MatterBridgeState {
    /// The identity; its payload names ``vendorID`` and ``productID``.
    var setup: MatterSetup
    var snapshot: CommissioningSnapshot
    /// The CASE resumption records of ``snapshot``'s fabrics, least recently used first.
    var resumptions: [ResumptionStore.Record] = []
    /// Basic Information's NodeLabel and Location as last served; nil: the configuration's.
    var nodeLabel: String?
    var location: String?
    /// `matterBridge.name` when ``nodeLabel`` was kept.
    var configuredName: String?

    /// The state cannot be used; the text says what is wrong and what to do.
    struct Unusable: Error, CustomStringConvertible {
        var reason: String
        var description: String {
            "the registry's Matter bridge state cannot be used (\(reason)); `traitbridge matter reset --identity` "
                + "makes a new one (controllers must commission the bridge again)"
        }
    }

    /// The vendor and product of the SDK's test DAC: what the device attests as without `attestation`.
    static let testVendorID = DeviceInformation().vendorID
    static let testProductID = DeviceInformation().productID

    var vendorID: UInt16 { setup.payload.vendorID }
    var productID: UInt16 { setup.payload.productID }

    /// A new identity naming `vendorID` and `productID`, `passcode` and `discriminator` when given, else
    /// drawn; no fabric.
    static func fresh(
        passcode: UInt32? = nil, discriminator: UInt16? = nil, vendorID: UInt16 = testVendorID,
        productID: UInt16 = testProductID
    ) throws -> MatterBridgeState {
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
    /// verifier derived again, every fabric restorable. A resumption record that is malformed or names
    /// no kept fabric is left out (it would only have saved a controller one full CASE).
    init(record: MatterBridgeRecord) throws(Unusable) {
        do {
            var random = SystemRandomNumberGenerator()
            setup = try MatterSetup(
                passcode: try SetupPasscode(record.setup.passcode), discriminator: record.setup.discriminator,
                vendorID: record.basicInformation?.vendorID ?? Self.testVendorID,
                productID: record.basicInformation?.productID ?? Self.testProductID, salt: record.setup.salt,
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
                    privilege: $0.privilege, authMode: $0.authMode, subjects: $0.subjects,
                    targets: $0.targets?.map {
                        AccessControlTarget(cluster: $0.cluster, endpoint: $0.endpoint, deviceType: $0.deviceType)
                    }, fabricIndex: $0.fabricIndex)
            }, regulatoryConfig: regulatory, countryCode: record.countryCode)
        do { _ = try CommissioningState(restoring: snapshot) } catch { throw Unusable(reason: "\(error)") }
        let fabrics = Set(snapshot.fabrics.map(\.index))
        resumptions = record.resumptions.compactMap {
            guard fabrics.contains($0.fabricIndex) else { return nil }
            return ResumptionStore.Record(
                restoring: $0.resumptionID, sharedSecret: $0.sharedSecret, peerNodeID: $0.peerNodeID,
                peerCASEAuthenticatedTags: $0.caseAuthenticatedTags, fabricIndex: $0.fabricIndex)
        }
        nodeLabel = record.basicInformation?.nodeLabel
        location = record.basicInformation?.location
        configuredName = record.basicInformation?.configuredName
    }

    /// What the device starts from: the fabrics, the resumption records, the labels.
    var node: NodeSnapshot {
        NodeSnapshot(commissioning: snapshot, resumptions: resumptions, nodeLabel: nodeLabel, location: location)
    }

    /// This state with what the device kept last (`configuredName`: the configuration's name then).
    func keeping(_ node: NodeSnapshot, configuredName: String?) -> MatterBridgeState {
        var state = self
        state.snapshot = node.commissioning
        state.resumptions = node.resumptions
        state.nodeLabel = node.nodeLabel
        state.location = node.location
        state.configuredName = configuredName
        return state
    }

    /// Factory state but for the identity: no fabric, no resumption record, the labels the configuration's.
    func reset() -> MatterBridgeState {
        var state = MatterBridgeState(setup: setup, snapshot: CommissioningSnapshot())
        state.configuredName = configuredName
        return state
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
                    fabricIndex: $0.fabricIndex, privilege: $0.privilege, authMode: $0.authMode, subjects: $0.subjects,
                    targets: $0.targets?.map {
                        MatterBridgeRecord.Target(cluster: $0.cluster, endpoint: $0.endpoint, deviceType: $0.deviceType)
                    })
            },
            resumptions: resumptions.map {
                MatterBridgeRecord.Resumption(
                    resumptionID: $0.resumptionID, sharedSecret: $0.sharedSecret, fabricIndex: $0.fabricIndex,
                    peerNodeID: $0.peerNodeID, caseAuthenticatedTags: $0.peerCASEAuthenticatedTags)
            },
            basicInformation: .init(
                vendorID: vendorID, productID: productID, nodeLabel: nodeLabel, location: location,
                configuredName: configuredName))
    }

    /// Bridge `bridge`'s state in the registry with the configured passcode and discriminator (a new salt
    /// and verifier when the passcode changes), naming the configured vendor and product (`matter show`'s
    /// QR code names them too), or a new one on the first start; written back when it changed. A NodeLabel
    /// kept under another configured `name` gives way to the one configured now.
    static func load(
        from store: DeviceStore, bridge: Int = 1, passcode: UInt32?, discriminator: UInt16?,
        vendorID: UInt16 = testVendorID, productID: UInt16 = testProductID, name: String? = nil
    ) throws -> MatterBridgeState {
        guard let record = try store.matterBridge(bridge) else {
            var made = try fresh(
                passcode: passcode, discriminator: discriminator, vendorID: vendorID, productID: productID)
            made.configuredName = name
            try store.saveMatterBridge(made.record, bridge: bridge, now: Date())
            return made
        }
        var state = try MatterBridgeState(record: record)
        if state.configuredName != name {
            state.nodeLabel = nil
            state.configuredName = name
        }
        let wanted = (
            passcode ?? state.setup.payload.passcode.value, discriminator ?? state.setup.payload.discriminator
        )
        if wanted != (state.setup.payload.passcode.value, state.setup.payload.discriminator) {
            var random = SystemRandomNumberGenerator()
            let samePasscode = wanted.0 == state.setup.payload.passcode.value
            state.setup = try MatterSetup(
                passcode: try SetupPasscode(wanted.0), discriminator: wanted.1, vendorID: vendorID,
                productID: productID, salt: samePasscode ? state.setup.salt : nil, iterations: state.setup.iterations,
                using: &random)
        }
        state.setup = state.setup.naming(vendorID: vendorID, productID: productID)
        if state.record != record { try store.saveMatterBridge(state.record, bridge: bridge, now: Date()) }
        return state
    }
}
