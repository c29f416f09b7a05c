import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeModel

/// A device a SYNC imported, at run time: what the cloud said, and which device shows its traits.
struct CloudRuntime: Sendable {
    var origin: CloudDeviceOrigin
    var source: SourceReference
    var identity: DeviceIdentity
    /// The device id it has on its own (`c2c-<id>`).
    var ownID: DeviceID
    /// The device its traits are on: its own, or a local device of the same identity.
    var target: DeviceID
    /// Keys of its device types on the target.
    var keys: [String]
    /// Its device types as imported (used when the target is rebuilt by its own source).
    var types: [DeviceTypeInstance]
    /// Cloud states no trait holds, for QUERY exports.
    var extraStates: [String: AttributeValue] = [:]
    /// A link's device: when an answer (SYNC, QUERY, EXECUTE, a push) last spoke of it, and
    /// whether its traits were made `unknown` for want of one.
    var lastAnswer: Date?
    var isStale = false

    var isStandalone: Bool { target == ownID }
}

/// The devices imported from Google Cloud-to-cloud (SYNC files and cloud links), by C2C id, and
/// two inverses: which imported devices show their traits on each graph device, and which each
/// link (source instance) imported — so a link's devices are found without a scan of all.
///
/// The one owner of both maps, so they cannot drift apart: every change goes through
/// ``set(_:_:)`` or ``modify(_:_:)``, which keep the inverses in step (before this type, every
/// caller had to remember to).
struct CloudImportIndex: Sendable {
    private var devices: [String: CloudRuntime] = [:]
    private var byTarget: [DeviceID: Set<String>] = [:]
    private var byInstance: [String: Set<String>] = [:]

    var isEmpty: Bool { devices.isEmpty }
    var count: Int { devices.count }

    subscript(c2cID: String) -> CloudRuntime? { devices[c2cID] }

    /// The C2C ids whose traits are on `target` (standalone ones on their own id).
    func ids(on target: DeviceID) -> Set<String> { byTarget[target] ?? [] }

    /// Every imported device by C2C id, in no order (read once a second by the staleness sweep:
    /// not sorted, not copied).
    var all: [String: CloudRuntime] { devices }

    /// The devices a cloud link (or a SYNC file's instance) imported, by C2C id, sorted.
    func devices(ofInstance instance: String) -> [(c2cID: String, runtime: CloudRuntime)] {
        (byInstance[instance] ?? []).sorted().compactMap { id in devices[id].map { (id, $0) } }
    }

    /// How many devices a cloud link (or a SYNC file's instance) imported.
    func count(ofInstance instance: String) -> Int { byInstance[instance]?.count ?? 0 }

    /// The imported device fed by `source` (a source reference is one C2C device). Its native id
    /// is the C2C id (``GoogleC2C``'s references): one lookup per relayed command; a reference made
    /// otherwise is still found, by a scan.
    func runtime(for source: SourceReference?) -> CloudRuntime? {
        guard let source else { return nil }
        if let runtime = devices[source.nativeID], runtime.source == source { return runtime }
        return devices.values.first { $0.source == source }
    }

    /// Sets (or, with `nil`, removes) a device's runtime; the inverse follows.
    mutating func set(_ c2cID: String, _ runtime: CloudRuntime?) {
        if let old = devices[c2cID] {
            byTarget[old.target]?.remove(c2cID)
            if byTarget[old.target]?.isEmpty == true { byTarget.removeValue(forKey: old.target) }
            byInstance[old.source.instance]?.remove(c2cID)
            if byInstance[old.source.instance]?.isEmpty == true { byInstance.removeValue(forKey: old.source.instance) }
        }
        devices[c2cID] = runtime
        if let runtime {
            byTarget[runtime.target, default: []].insert(c2cID)
            byInstance[runtime.source.instance, default: []].insert(c2cID)
        }
    }

    /// Changes a device's runtime in place (its target too: the inverse follows). Returns what
    /// `body` returned, or `nil` when no device has that id.
    @discardableResult
    mutating func modify<T>(_ c2cID: String, _ body: (inout CloudRuntime) -> T) -> T? {
        guard var runtime = devices[c2cID] else { return nil }
        let result = body(&runtime)
        set(c2cID, runtime)
        return result
    }
}
