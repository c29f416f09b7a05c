import TraitBridgeModel

/// Which trait instance a command goes to when the caller did not name a device type.
///
/// A device fed by two sources — a zigbee2mqtt bulb and its Google cloud twin — has the same
/// trait twice, once per path. Asking "Hall light, on" must not be answered "name the device
/// type": the bridge takes the best path, as a person would: one that is online before one that
/// is not, then the nearest (direct, local peer, remote). Instances that come from one source
/// family (the two channels of a dual relay, two switches of one Home Assistant device) stay
/// ambiguous: only the caller knows which one is meant.
enum CommandRouting {
    /// The trait instance of `device` a command on `traitID` goes to (`key`: the device type the
    /// caller named, if any).
    static func address(
        on device: Device, _ traitID: TraitID, deviceTypeKey key: String?
    ) throws(CommandFailure) -> TraitAddress {
        do {
            return try device.resolve(traitID, deviceTypeKey: key)
        } catch .ambiguousTrait(_, let keys) {
            let holders = keys.compactMap { key in device.deviceTypes.first { $0.key == key } }
            let sources = holders.compactMap { $0.trait(traitID)?.source?.family }
            // One instance per source family: the same function reached by different paths.
            let onePerPath = sources.count == holders.count && Set(sources).count == holders.count
            guard onePerPath, let best = holders.min(by: { pathRank($0, traitID) < pathRank($1, traitID) }) else {
                throw CommandFailure(
                    .notSupported,
                    "trait \(traitID) is in several device types (\(keys.joined(separator: ", "))); "
                        + "name one with \"deviceType\" (CLI: --device-type)")
            }
            return TraitAddress(deviceTypeKey: best.key, traitID: traitID)
        } catch .traitNotInDeviceType(let address) where address.deviceTypeKey == "*" {
            let traits = device.deviceTypes.flatMap { $0.traits.map(\.traitID.description) }
            throw CommandFailure(
                .notSupported,
                "the device has no trait \(traitID)\(Suggestions.didYouMean(traitID.description, among: traits)); "
                    + "its traits: \(Array(Set(traits)).sorted().joined(separator: ", "))")
        } catch {
            throw CommandFailure(.notSupported, error.description)
        }
    }

    /// Lower is better: connectivity first, then locality, then the key (stable).
    private static func pathRank(_ type: DeviceTypeInstance, _ traitID: TraitID) -> (Int, Int, String) {
        let connectivity = type.trait(traitID)?.connectivity
        let state: Int =
            switch connectivity?.state {
            case .online: 0
            case .unknown, nil: 1
            case .offline: 2
            }
        let locality: Int =
            switch connectivity?.locality {
            case .direct: 0
            case .localPeer: 1
            case .remote: 2
            case .unspecified, nil: 3
            }
        return (state, locality, type.key)
    }
}
