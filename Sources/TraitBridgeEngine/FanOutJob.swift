import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel

/// A group command or a scene run in progress: one entry per member (or scene action), each
/// settled by the outcome of the command that carries it; answered when the last one is.
struct FanOutJob: Sendable {
    /// Where the answer goes; `nil` for an automation's run (recorded in its history instead).
    var reply: ResponseSink?
    /// "group" or "scene", the thing's id and name (for the answer).
    var kind: String
    var id: String
    var name: String
    var scene: SceneID?
    /// The automation whose run this is, and why it ran.
    var automation: AutomationRunInfo?
    /// The EXECUTE request (Google's ActivateScene) this scene run answers, and the scene's C2C id.
    var execute: (job: Int, c2cID: String)?
    var entries: [FanOutEntry]
    /// Command index → the entries its outcome settles.
    var commands: [[Int]] = []
    var open = 0
    var started: Date
}

/// One member's or action's outcome: confirmed, assumed, refused (with the command's code),
/// skipped (offline: not sent) or notApplicable (a member without the trait).
struct FanOutEntry: Sendable {
    /// `nil` for an action on no device (a notification).
    var device: DeviceID?
    var deviceTypeKey: String?
    var action: JSONValue?
    var status: String?
    var code: String?
    var message: String?
}
