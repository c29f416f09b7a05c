import FoundationEssentials
import TraitBridgeMapping
import TraitBridgeModel

/// One Frigate camera as its plug-in keeps it: the device it is in the model (a Camera whose push
/// transport is Frigate's recording, with its motion as occupancy) and what Frigate last said of
/// the settings the model derives from several topics.
struct FrigateCamera: Sendable {
    /// Frigate's name for it (`front_door`), the middle of its topics.
    var name: String
    var device: Device
    var isRecording: Bool?
    var threshold: Int?
    var contourArea: Int?

    static let key = "camera"
    static let transport = TraitAddress(deviceTypeKey: key, traitID: .google("PushAvStreamTransport"))
    static let occupancy = TraitAddress(deviceTypeKey: key, traitID: .matter("OccupancySensing"))
    static let connections = "currentConnections"
    /// The one push transport a Frigate camera has: its recording.
    static let connectionID: Int64 = 1

    init(name: String, source: SourceReference, catalog: Catalog) throws {
        self.name = name
        var type = try catalog.makeDeviceType(
            key: Self.key, type: .google("Camera"), isPrimaryType: true,
            traits: [.google("PushAvStreamTransport"), .google("WebRtcLiveView"), .matter("OccupancySensing")])
        for index in type.traits.indices { type.traits[index].source = source }
        device = try Device(
            id: DeviceID.derived(source: source.family, nativeID: name), name: Self.displayName(name),
            identity: DeviceIdentity(otherDeviceIDs: [OtherDeviceID(agentID: source.family, deviceID: name)]),
            info: DeviceInfo(manufacturer: "Frigate", model: "Camera"), sources: [source], deviceTypes: [type])
    }

    /// `front_door` → `Front door`: what a person would call it until they rename it.
    static func displayName(_ name: String) -> String {
        let spaced = String(name.map { $0 == "_" ? " " : $0 })
        return spaced.prefix(1).uppercased() + spaced.dropFirst()
    }

    /// The push transport as the unified contract has it (Google's `TransportConfigurationStruct`),
    /// once Frigate has said whether it records: active while it records, triggered by motion with
    /// the sensitivity its threshold reads as, events at most `maxEventSeconds` long.
    func connections(table: FrigateTable, maxEventSeconds: Int) -> AttributeValue? {
        guard let isRecording else { return nil }
        var trigger: [String: AttributeValue] = [
            "triggerType": .int(1),  // Motion
            "motionTimeControl": .structure([
                "initialDuration": .int(1), "augmentationDuration": .int(0),
                "maxDuration": .int(Int64(maxEventSeconds)), "blindDuration": .int(0),
            ]),
        ]
        if let threshold, let level = table.level(threshold: threshold) {
            trigger["motionSensitivity"] = .int(Int64(level.sensitivity))
        }
        let options: [String: AttributeValue] = ["streamUsage": .int(0), "triggerOptions": .structure(trigger)]
        return .list([
            .structure([
                "connectionId": .int(Self.connectionID), "transportStatus": .int(isRecording ? 0 : 1),
                "transportOptions": .structure(options),
            ])
        ])
    }
}
