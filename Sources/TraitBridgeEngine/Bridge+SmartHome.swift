import Foundation
import FoundationEssentials
import Synchronization
public import TraitBridgeCloud
import TraitBridgeJSON
public import TraitBridgeModel

/// The fulfillment endpoint's way in (SYNC, QUERY, EXECUTE, DISCONNECT answered from the state),
/// the login pages' counts, and the edge connections plug-ins read from (a Matter Server's WebSocket).
extension Bridge {
    // MARK: Smart-home fulfillment

    /// The login pages' running totals (wrong passwords, attempts told to wait): on the health topic.
    public func noteLogins(failed: Int, waited: Int) {
        state.withLock { perform($0.noteLogins(failed: failed, waited: waited)) }
    }

    /// Answers one of Google's smart-home intents (the HTTP layer's `POST /smarthome`): SYNC and
    /// QUERY from a copy of the state, outside the lock; EXECUTE through the command path, waiting
    /// for the devices' confirmations (bounded by the command timeout). DISCONNECT is the caller's.
    public func smartHome(
        _ request: SmartHomeRequest, body: [UInt8], agentUserID: String, source: String,
        stream: CameraStreamContext? = nil
    ) async -> [UInt8] {
        switch request.intent {
        case .sync:
            return snapshot.smartHomeSync(requestID: request.requestID, agentUserID: agentUserID)
        case .query:
            return snapshot.smartHomeQuery(body, requestID: request.requestID, source: source)
        case .disconnect:
            return Array("{}".utf8)
        case .execute:
            let now = Date()
            return await answered(ifStopped: Self.notRunning(request.requestID)) { state, id in
                state.smartHomeExecute(
                    body, requestID: request.requestID, source: source, waiter: id, stream: stream, now: now)
            }
        }
    }

    /// Runs `event` with a new waiter's id under the state lock and waits for the answer addressed
    /// to that waiter. Stopped, nothing would time its commands out: `ifStopped` is the answer at
    /// once, not never (checked under the state lock, which `stop()` takes to answer those waiting).
    func answered(
        ifStopped: [UInt8], _ event: @escaping (inout BridgeState, Int) -> BridgeEffects
    ) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            let id = waiters.withLock { waiters in
                defer { waiters.next += 1 }
                waiters.pending[waiters.next] = continuation
                return waiters.next
            }
            state.withLock { state in
                guard ticker.withLock({ $0.isRunning }) else {
                    var effects = BridgeEffects()
                    effects.answers.append((id, ifStopped))
                    perform(effects)
                    return
                }
                perform(event(&state, id))
            }
        }
    }

    /// A unified command (the `…/set` payload) for a device, answered with its result as the result
    /// topic would carry it (`confirmed`, `assumed`, or `error` with its code) once the device
    /// echoed or the command timed out: the HTTP API's command route.
    public func command(_ deviceID: DeviceID, payload: [UInt8]) async -> [UInt8] {
        let now = Date()
        let stopped: JSONValue = [
            "status": "error", "code": "protocolError", "message": "the bridge is not running; try again",
        ]
        return await answered(ifStopped: stopped.serializedBytes()) { state, id in
            state.runCommand(deviceID, payload: payload, waiter: id, now: now)
        }
    }

    /// A bridge request (the MQTT contract's `…/bridge/request/<operation>`, same payload, same
    /// answer) from this process: the HTTP API's layout edits, group commands, scene and
    /// automation runs. Fan-outs answer once every member or action has its outcome.
    public func request(_ operation: String, payload: [UInt8]) async -> [UInt8] {
        let now = Date()
        let stopped: JSONValue = ["status": "error", "message": "the bridge is not running; try again"]
        return await answered(ifStopped: stopped.serializedBytes()) { state, id in
            state.runRequest(operation, payload: payload, waiter: id, now: now)
        }
    }

    static func notRunning(_ requestID: String) -> [UInt8] {
        GoogleC2C.errorResponse(
            requestID: requestID, errorCode: "transientError", debugString: "the bridge is not running; try again"
        ).serializedBytes()
    }

    // MARK: Edge connections of plug-ins

    /// Registers who sends what the plug-in of `channel` publishes (its edge connection).
    public func attachChannel(_ channel: String, sender: @escaping @Sendable (Outgoing) -> Void) {
        channelSenders.withLock { $0[channel] = sender }
    }

    public func detachChannel(_ channel: String) {
        _ = channelSenders.withLock { $0.removeValue(forKey: channel) }
    }

    /// A message from a plug-in's edge connection, handled like a broker message.
    public func channelReceived(_ channel: String, topic: String, payload: [UInt8]) {
        let now = Date()
        state.withLock { perform($0.handleChannelMessage(channel: channel, topic: topic, payload: payload, now: now)) }
    }

    /// The channels the configured plug-ins read from (`matter/default`).
    public var channels: [String] { state.withLock { $0.channels } }
}
