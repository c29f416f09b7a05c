public import TraitBridgeModel

/// A Shelly as the bridge knows it: where its topics are, what it announced, and the device it
/// has become so far. Shelly has no discovery of its components: a relay, a cover, a sensor
/// joins the device with its first value (a Gen1 announce or a Gen2 status only names the device).
public struct ShellyDevice: Sendable {
    public enum Generation: Int, Sendable, Hashable { case gen1 = 1, gen2 = 2 }

    public var generation: Generation
    /// Gen1 `shellies/<id>` (the id may contain `/` when misconfigured); Gen2 the topic prefix.
    public var base: String
    /// Gen1 the MQTT id; Gen2 the device id of the `src` field (`shellyplus1pm-4417939a5610`).
    public var nativeID: String
    public var device: Device
    /// Device type key → index of the first table rule that made it, so the primary type does not
    /// depend on the order values arrive in (a sensor's battery is never its primary type).
    var typeRanks: [String: Int] = [:]

    public init(generation: Generation, base: String, nativeID: String, device: Device) {
        self.generation = generation
        self.base = base
        self.nativeID = nativeID
        self.device = device
    }

    /// Whether the device has anything to show yet (it is registered only then).
    public var hasComponents: Bool { !device.deviceTypes.isEmpty }
}
