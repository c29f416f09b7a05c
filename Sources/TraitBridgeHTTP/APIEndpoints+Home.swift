import Hummingbird
import NIOCore
import TraitBridgeEngine
import TraitBridgeJSON

/// The home above the devices in the HTTP API: rooms, zones, groups (and a command to every
/// member), scenes (run), automations (history, run), cloud links' health, and the MQTT
/// contract's edit requests for admins. Runs go through ``Bridge/request(_:payload:)``, the same
/// path as `…/bridge/request/<operation>`, so the answers are the contract's.
extension APIEndpoints {
    static let homePaths: [(path: String, methods: [HTTPRequest.Method])] = [
        ("api/v1/rooms", [.get]), ("api/v1/zones", [.get]), ("api/v1/groups", [.get]),
        ("api/v1/groups/:group", [.get]), ("api/v1/groups/:group/commands", [.post]), ("api/v1/scenes", [.get]),
        ("api/v1/scenes/:scene/run", [.post]), ("api/v1/automations", [.get]),
        ("api/v1/automations/:automation/history", [.get]), ("api/v1/automations/:automation/run", [.post]),
        ("api/v1/cloud-links", [.get]), ("api/v1/requests/:operation", [.post]),
    ]

    func registerHome(on router: Router<ClientRequestContext>) {
        for kind in BridgeState.LayoutListKind.allCases {
            router.get(RouterPath("api/v1/" + kind.rawValue)) { request, _ in
                authorized(request) { FulfillmentServer.json(.ok, bridge.snapshot.layoutList(kind).serializedBytes()) }
            }
        }
        router.get("api/v1/groups/:group") { request, context in
            authorized(request) {
                let name = Self.parameter(context, "group")
                guard let group = bridge.snapshot.group(named: name) else {
                    return Self.problem(
                        .notFound, "no such group",
                        "no group has the id or name '\(name)'"
                            + bridge.snapshot.didYouMean(name, kind: .group), request)
                }
                return FulfillmentServer.json(.ok, group.serializedBytes())
            }
        }
        router.get("api/v1/automations/:automation/history") { request, context in
            authorized(request) {
                let name = Self.parameter(context, "automation")
                guard let history = bridge.snapshot.automationHistory(named: name) else {
                    return Self.missingAutomation(name, request)
                }
                return FulfillmentServer.json(.ok, history.serializedBytes())
            }
        }
        router.post("api/v1/groups/:group/commands") { request, context in
            await authorizedAsync(request, needs: .control) {
                let name = Self.parameter(context, "group")
                guard let group = bridge.snapshot.groupAddress(named: name) else {
                    return Self.problem(
                        .notFound, "no such group",
                        "no group has the id or name '\(name)'"
                            + bridge.snapshot.didYouMean(name, kind: .group), request)
                }
                guard case .object(var command) = await body(of: request, max: maxBodyBytes) else {
                    return Self.notAnObject(request, maxBodyBytes)
                }
                command["group"] = .string(group.id)
                command["home"] = .string(group.home)
                return await run("group-command", .object(command), request)
            }
        }
        router.post("api/v1/scenes/:scene/run") { request, context in
            await authorizedAsync(request, needs: .control) {
                let name = Self.parameter(context, "scene")
                guard let scene = bridge.snapshot.scene(named: name) else {
                    return Self.problem(
                        .notFound, "no such scene",
                        "no scene has the id or name '\(name)'"
                            + bridge.snapshot.didYouMean(name, kind: .scene), request)
                }
                return await run("scene-run", ["scene": .string(scene.id), "home": .string(scene.home)], request)
            }
        }
        router.post("api/v1/automations/:automation/run") { request, context in
            await authorizedAsync(request, needs: .control) {
                let name = Self.parameter(context, "automation")
                guard bridge.snapshot.automationHistory(named: name) != nil else {
                    return Self.missingAutomation(name, request)
                }
                return await run("automation-run", ["automation": .string(name)], request)
            }
        }
        router.post("api/v1/requests/:operation") { request, context in
            await authorizedAsync(request, needs: .admin) {
                let operation = Self.parameter(context, "operation")
                guard BridgeState.editOperations.contains(operation) else {
                    return Self.problem(
                        .notFound, "no such request",
                        "'\(operation.prefix(64))' is not one of \(BridgeState.editOperations.joined(separator: ", "))",
                        request)
                }
                guard let payload = await body(of: request, max: maxBodyBytes), case .object = payload else {
                    return Self.notAnObject(request, maxBodyBytes)
                }
                return await run(operation, payload, request)
            }
        }
    }

    /// Runs a bridge request; its `"status": "error"` answer is a 422 problem with its message.
    private func run(_ operation: String, _ payload: JSONValue, _ request: Request) async -> Response {
        let answer = await bridge.request(operation, payload: payload.serializedBytes())
        guard let root = try? JSONDocument.parse(answer).root, let status = root["status"]?.string else {
            return Self.problem(.internalServerError, "no answer", "the bridge gave no answer", request)
        }
        guard status == "error" else { return FulfillmentServer.json(.ok, answer) }
        return Self.problem(
            .unprocessableContent, "request refused", root["message"]?.string ?? operation, request, kind: "refused")
    }

    /// The body as JSON (at most `max` bytes, 16 levels), or nil.
    private func body(of request: Request, max: Int) async -> JSONValue? {
        guard let buffer = try? await request.body.collect(upTo: max) else { return nil }
        let bytes = Array(buffer: buffer)
        return try? JSONDocument.parse(bytes.isEmpty ? Array("{}".utf8) : bytes, maxDepth: 16).root.value
    }

    private static func notAnObject(_ request: Request, _ max: Int) -> Response {
        problem(.badRequest, "not a JSON object", "send a JSON object of at most \(max) bytes", request)
    }

    private static func missingAutomation(_ name: String, _ request: Request) -> Response {
        problem(.notFound, "no such automation", "no automation has the id or name '\(name)'", request)
    }
}
