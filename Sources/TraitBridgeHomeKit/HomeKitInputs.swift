import Crypto
import Foundation
import TraitBridgeCloud
public import TraitBridgeMapping
import TraitBridgeModel

/// The HomeKit server's entry points for outside bytes, each as a function of bytes: what the fuzz
/// targets run (`homekit-pairing`, `homekit-requests`). Each traps only on a bug, including a
/// broken promise (an answer that does not read back, a reader that invents bytes).
public enum HomeKitInputs {
    /// Pairing messages (each a length byte, then that many bytes of TLV8) to pair-setup, pair-verify
    /// and `/pairings`, on an accessory that is unpaired and on one that is paired.
    public static func pairing(_ bytes: [UInt8]) {
        // A setup already started by connection 0 (its M1's exponentiations are paid once, not per
        // input): M1 messages go to pair-verify and /pairings only.
        var unpaired = started
        var identity = unpaired.identity
        identity.controllers = [
            PairedController(id: "admin", publicKey: [UInt8](repeating: 7, count: 32), isAdmin: true)
        ]
        var paired = PairingState(identity: identity)
        var verify = PairVerify()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let random = { PairingState.SetupRandom(salt: Array(0..<16), privateValue: Array(16..<48)) }
        let ephemeral = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
        var rest = bytes[...]
        while let length = rest.first {
            let message = Array(rest.dropFirst().prefix(Int(length)))
            rest = rest.dropFirst(1 + Int(length))
            guard let tlv = try? TLV8(decoding: message) else { continue }
            let connection = Int(message.first ?? 0) % 3
            let setup =
                tlv.byte(.state) == 1
                ? TLV8()
                : unpaired.pairSetup(
                    tlv, connection: connection, now: now,
                    random: random
                ).tlv
            for answer in [
                setup,
                paired.pairings(tlv, requester: "admin").tlv,
                verify.handle(
                    tlv, pairingID: identity.pairingID, longTermSecretKey: identity.longTermSecretKey,
                    ephemeral: ephemeral, controllerKey: paired.publicKey(of:)
                ).tlv,
            ] {
                precondition((try? TLV8(decoding: answer.encoded)) == answer, "an answer reads back")
            }
            precondition(paired.identity.controllers.count <= PairingState.controllerLimit)
        }
    }

    /// A connection's bytes: as session frames (forged, all of them), then as plain requests, each
    /// routed as far as it goes without a bridge: ids read from a small accessory database, writes parsed.
    public static func requests(_ bytes: [UInt8], table: HomeKitTable) {
        var cipher = SessionCipher(sharedSecret: [UInt8](repeating: 1, count: 32))
        _ = try? cipher.open(bytes)
        var reader = HAPRequestReader()
        var given = 0
        var received = 0
        let database = database(table)
        for chunk in stride(from: 0, to: bytes.count, by: 97) {
            let piece = Array(bytes[chunk..<min(bytes.count, chunk + 97)])
            given += piece.count
            guard let requests = try? reader.feed(piece) else { return }
            received += requests.reduce(0) { $0 + $1.body.count }
            precondition(received <= given, "the reader invents no body bytes")
            for request in requests {
                _ = HAPDocuments.writes(request.body)
                let ids = request.query["id"] ?? String(decoding: request.body.prefix(64), as: UTF8.self)
                _ = HAPDocuments.read(ids: ids, database: database, graph: graph, subscribed: { _, _ in false })
            }
        }
    }

    static let started: PairingState = {
        var state = PairingState(identity: HomeKitIdentity.make { Array(0..<64) })
        var start = TLV8()
        start.append(.state, byte: 1)
        start.append(.method, byte: 0)
        _ = state.pairSetup(start, connection: 0, now: Date(timeIntervalSince1970: 1_800_000_000)) {
            PairingState.SetupRandom(salt: Array(0..<16), privateValue: Array(16..<48))
        }
        return state
    }()

    static let graph: HomeGraph = {
        var graph = try! HomeGraph()
        let traits = [
            TraitInstance(traitID: TraitID(parsing: "matter.OnOff")!, attributes: ["onOff": .bool(true)]),
            TraitInstance(traitID: TraitID(parsing: "matter.LevelControl")!, attributes: ["currentLevel": .int(300)]),
        ]
        try! graph.addDevice(
            try! Device(
                id: DeviceID("light"), name: "Light",
                deviceTypes: [
                    DeviceTypeInstance(
                        key: "main", typeID: DeviceTypeID(parsing: "matter.DimmableLight")!,
                        isPrimaryType: true, traits: traits)
                ]))
        return graph
    }()

    static func database(_ table: HomeKitTable) -> HAPDatabase {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        return HAPDatabase(
            graph: graph, table: table, rules: ExportRules(), bridgeName: "Fuzz", version: "1.0.0",
            identity: &identity)
    }
}
