import Foundation
import Logging
import Synchronization
import TraitBridgeDNSSD
import TraitBridgeEngine
import TraitBridgeModel

/// Following the bridge: the accessory database rebuilt when descriptions (or the layout) change,
/// the configuration number bumped and re-announced when the structure changed, and events sent
/// to each subscribed controller.
extension HomeKitBridge {
    func followChanges(advertiser: AvahiAdvertiser, port: Int) async {
        // The layout (scenes, names) changes without a device event: looked at every 10 s too.
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(10))
                shared.withLock { $0.descriptionsChanged = true }
                wakeContinuation.yield()
            }
        }
        defer { ticker.cancel() }
        for await _ in wake {
            let (devices, rebuild) = shared.withLock { shared in
                defer {
                    shared.changedDevices.removeAll()
                    shared.descriptionsChanged = false
                }
                return (shared.changedDevices, shared.descriptionsChanged)
            }
            let graph = bridge.snapshot.graph
            if rebuild {
                _ = rebuildDatabase(graph: graph)
                announce(advertiser, port: port)
            }
            let (database, connections) = shared.withLock { ($0.database, Array($0.connections.values)) }
            let accessories = Set(devices.compactMap { database.accessoryOfDevice[$0] })
            guard !accessories.isEmpty else { continue }
            // Each connection on its own: a controller that stopped reading delays nobody else.
            for connection in connections {
                Task { await connection.notify(accessories: accessories, database: database, graph: graph) }
            }
        }
    }

    /// Rebuilds the database; true when its structure changed (the configuration number went up).
    func rebuildDatabase(graph: HomeGraph) -> Bool {
        let (changed, identity, leftOut) = shared.withLock { shared -> (Bool, HomeKitIdentity?, Int) in
            var identity = shared.pairing.identity
            let before = identity
            let database = HAPDatabase(
                graph: graph, table: table, rules: settings.exportRules, bridgeName: name, version: version,
                admitted: share(graph), identity: &identity)
            let previousLeftOut = shared.database.leftOut
            shared.database = database
            identity.offered = database.keys
            var changed = false
            if identity.databaseDigest != database.structureDigest {
                identity.configurationNumber = identity.configurationNumber % 65535 + 1
                identity.databaseDigest = database.structureDigest
                changed = true
            }
            guard identity != before else { return (false, nil, 0) }
            shared.pairing.adoptIDs(of: identity)
            return (changed, shared.pairing.identity, database.leftOut != previousLeftOut ? database.leftOut : 0)
        }
        if let identity { persist(identity) }
        if leftOut > 0 {
            logger.warning(
                """
                HomeKit: \(leftOut) device(s) and scene(s) are not offered: a bridge has at most \
                \(HAPDatabase.accessoryLimit) accessories (HAP's limit)
                """)
        }
        return changed
    }

    /// Announces (or re-announces) `_hap._tcp` with the TXT record of now, on the host
    /// `traitbridge-<the pairing id's last 6 hex digits>.local`.
    func announce(_ advertiser: AvahiAdvertiser, port: Int) {
        guard !settings.mdnsInterfaces.isEmpty else { return }
        let identity = identity
        let host = "traitbridge-" + String(identity.pairingID.filter { $0 != ":" }.lowercased().suffix(6)) + ".local"
        let service = DNSSDService(
            name: name, type: "_hap._tcp", port: port,
            txt: [
                "c#": String(identity.configurationNumber), "ff": "0", "id": identity.pairingID,
                "md": name, "pv": "1.1", "s#": "1", "sf": identity.isPaired ? "0" : "1", "ci": "2",
                "sh": SetupCode.setupHash(setupID: identity.setupID, pairingID: identity.pairingID),
            ])
        advertiser.publish([service], host: host, interfaces: settings.mdnsInterfaces)
    }
}
