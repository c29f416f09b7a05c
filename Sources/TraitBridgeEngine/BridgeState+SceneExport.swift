import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

/// Scenes as Google sees them: each scene with actions is a `action.devices.types.SCENE` device
/// with the Scene trait (id `scene.<scene id>`, not reversible) in SYNC, online in QUERY, and
/// `ActivateScene` in EXECUTE runs it through the same path as `scene run`, answered SUCCESS when
/// at least one action was done (ERROR `deviceOffline` when every target was offline).
extension BridgeState {
    static let sceneCloudPrefix = "scene."

    /// The SYNC entries of the scenes that have actions (empty built-ins are left out).
    func sceneSyncEntries() -> [JSONValue] {
        var entries: [JSONValue] = []
        for home in graph.homes {
            for scene in home.scenes where !scene.actions.isEmpty {
                var entry = JSONObject()
                entry.append("id", .string(Self.sceneCloudPrefix + scene.id.rawValue))
                entry.append("type", "action.devices.types.SCENE")
                entry.append("traits", ["action.devices.traits.Scene"])
                entry.append("name", ["name": .string(scene.name)])
                entry.append("willReportState", false)
                entry.append("attributes", ["sceneReversible": false])
                if graph.homes.count > 1 { entry.append("structureHint", .string(home.name)) }
                entries.append(.object(entry))
            }
        }
        return entries
    }

    /// A SYNC response with the scenes added to its devices.
    func addingScenes(toSync response: JSONValue) -> JSONValue {
        let scenes = sceneSyncEntries()
        guard !scenes.isEmpty, case .object(var root) = response, case .object(var payload)? = root["payload"],
            case .array(let devices)? = payload["devices"]
        else { return response }
        payload["devices"] = .array(devices + scenes)
        root["payload"] = .object(payload)
        return .object(root)
    }

    /// The scene a C2C id names, if it names one.
    func scene(forCloudID id: String) -> Scene? {
        guard id.hasPrefix(Self.sceneCloudPrefix) else { return nil }
        return graph.scene(SceneID(String(id.dropFirst(Self.sceneCloudPrefix.count))))
    }

    /// A QUERY response with the asked-for scenes answered online.
    func addingScenes(toQuery response: JSONValue, _ ids: [String]) -> JSONValue {
        guard !ids.isEmpty, case .object(var root) = response, case .object(var payload)? = root["payload"],
            case .object(var devices)? = payload["devices"]
        else { return response }
        for id in ids { devices.append(id, ["online": true, "status": "SUCCESS"]) }
        payload["devices"] = .object(devices)
        root["payload"] = .object(payload)
        return .object(root)
    }

    /// An EXECUTE for a scene: `ActivateScene` runs it; anything else is refused.
    mutating func executeScene(
        _ scene: Scene, c2cID: String, executions: [ExecuteRequest.Execution], job: Int, now: Date,
        effects: inout BridgeEffects
    ) {
        let activates =
            executions.count == 1 && executions[0].command == "ActivateScene"
            && executions[0].params["deactivate"] != .bool(true)
        guard activates else {
            let asked = executions.map(\.command).joined(separator: ", ")
            finishExecute(
                job,
                ExecuteOutcome(
                    c2cID: c2cID, status: .error,
                    errorCode: executions.contains { $0.command == "ActivateScene" }
                        ? "actionNotAvailable" : "functionNotSupported",
                    debugString: "scene '\(scene.name)' can be activated only (not \(asked)); it is not reversible"),
                effects: &effects)
            return
        }
        runScene(scene, reply: nil, execute: (job, c2cID), now: now, effects: &effects)
    }
}
