public import TraitBridgeMapping
public import TraitBridgeModel

/// A device Tasmota announced on `tasmota/discovery/<mac>/config`, mapped to the model, with its
/// topics (its FullTopic may put the prefix anywhere) and what each payload key feeds.
public struct TasmotaDevice: Sendable {
    /// The MAC address: the stable native id (the topic can be changed on the device).
    public var mac: String
    /// `%topic%` of the device (`t`).
    public var topic: String
    /// `ft`, e.g. `%prefix%/%topic%/` or `%topic%/%prefix%/`.
    public var fullTopic: String
    /// `tp`: the command, status and telemetry prefixes (`cmnd`, `stat`, `tele`).
    public var prefixes: [String]
    public var onlinePayload: String
    public var offlinePayload: String
    public var device: Device
    /// POWER<n> (1-based) → the device type key it switches.
    public var powerKeys: [Int: String]
    /// The light's device type key and subtype (`lt_st`), when it has a light.
    public var light: (key: String, subtype: Int)?
    /// Sensor object name (`AM2301`) → measurements → device type key.
    public var sensors: [String: [(value: TasmotaTable.Value, key: String)]]
    /// The device type key that carries ENERGY values (the first relay).
    public var energyKey: String?
    /// What discovery left out, and why (a shutter, an unknown relay type).
    public var problems: [SourceProblem]

    public enum Prefix: Int, Sendable { case command = 0, status = 1, telemetry = 2 }

    /// The topic of `suffix` under one of the device's prefixes (FullTopic expanded).
    public func topic(_ prefix: Prefix, _ suffix: String) -> String {
        let prefixText = prefixes.indices.contains(prefix.rawValue) ? prefixes[prefix.rawValue] : ["cmnd", "stat", "tele"][prefix.rawValue]
        var text = fullTopic.replacing("%prefix%", with: prefixText).replacing("%topic%", with: topic)
        if !text.hasSuffix("/") { text += "/" }
        return text + suffix
    }

    /// The 1-based POWER index of a device type key.
    public func powerIndex(of key: String) -> Int? {
        powerKeys.first { $0.value == key }?.key
    }

    /// The device's topics and what each carries (tele LWT/STATE/SENSOR, stat STATE/RESULT/POWER<n>).
    /// A FullTopic without `%prefix%`, or two equal prefixes, makes two of them the same topic:
    /// the first kind listed keeps it (a config can say anything; nothing here may trap on it).
    public var messageKinds: [String: TasmotaSource.MessageKind] {
        var kinds: [(String, TasmotaSource.MessageKind)] = [
            (topic(.telemetry, "LWT"), .lastWill), (topic(.telemetry, "STATE"), .state), (topic(.telemetry, "SENSOR"), .sensor),
            (topic(.status, "STATE"), .state), (topic(.status, "RESULT"), .state), (topic(.status, "POWER"), .power(1)),
        ]
        for number in powerKeys.keys.sorted() { kinds.append((topic(.status, "POWER\(number)"), .power(number))) }
        var topics: [String: TasmotaSource.MessageKind] = [:]
        for (topic, kind) in kinds where topics[topic] == nil { topics[topic] = kind }
        return topics
    }
}
