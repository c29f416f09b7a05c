import Foundation
import TraitBridgeCLI
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeHomeKit
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Every entry point that takes bytes from outside, as one function of bytes each: what
/// `make fuzz` runs under libFuzzer (Fuzz/), and what the regression tests replay from
/// `Fuzz/crashers/` and the seed corpora. A target traps when the code under it traps, and also
/// when an invariant the bridge promises is broken (a state published that is not JSON; a SYNC
/// entry the registry keeps that cannot be read back).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Each source's message handler (topic + payload, several messages per input) on a bridge
    /// that already knows devices of every source; `frigate` also feeds its bytes to the live view's
    /// signalling (as a viewer's offer and as a camera's answer).
    case zigbee2mqtt, tasmota, shelly, homeassistant, generic, frigate
    /// The Matter Server's messages (server info, node lists, events, answers) as its WebSocket
    /// delivers them to the Matter plug-in.
    case matter
    /// The bridge's own topics: `devices/<id>/set` and `bridge/request/<op>` (rename, move, sync,
    /// query, execute).
    case requests
    /// The home above the devices: layout edits (homes, rooms, zones, groups, scenes), group
    /// commands, scene runs and automation definitions as requests, then a day of ticks.
    case home
    /// Cloud-to-cloud readers: a SYNC response, a QUERY/EXECUTE response or Report State, an
    /// EXECUTE or QUERY request; the SYNC and QUERY answers also as a cloud link's partner sends them.
    case cloudSync = "cloud-sync"
    case cloudQuery = "cloud-query"
    case cloudExecute = "cloud-execute"
    /// `POST /smarthome` bodies (SYNC/QUERY/EXECUTE/DISCONNECT envelopes answered by the bridge)
    /// and the account-linking inputs (form posts, the static tokens file).
    case fulfillment
    /// The JSON reader under everything.
    case json
    /// `mappings/` files: the first byte picks the file the rest replaces.
    case mappings
    /// The serve config file.
    case config
    /// What a damaged or foreign registry may hold: an older version's descriptions and SYNC entries,
    /// a kept cloud origin's Google objects.
    case registry
    /// What the read commands print from retained messages anyone may publish under the prefix.
    case cli
    /// HomeKit: pairing messages (pair-setup, pair-verify, `/pairings`), and a connection's bytes
    /// (session frames, then HTTP requests to the characteristics).
    case homekitPairing = "homekit-pairing"
    case homekitRequests = "homekit-requests"
    /// The Matter device: UDP datagrams from a few peers, time passing between them.
    case matterDevice = "matter-device"
    /// The Matter device's interaction model: messages on a PASE session, time passing between them.
    case matterInteraction = "matter-interaction"
    /// CASE on a responder that holds a fabric: Sigma1, Sigma3 and StatusReport payloads and time-outs, with
    /// the harness's help to get past the destination check and Sigma3's decryption.
    case matterCase = "matter-case"
    /// Matter TLV from untrusted bytes: decoded within bounds, written again, read back equal.
    case matterTLV = "matter-tlv"

    /// Runs one input. Traps only on a bug.
    public func run(_ bytes: [UInt8]) {
        let world = FuzzWorld.shared
        switch self {
        case .zigbee2mqtt, .tasmota, .shelly, .homeassistant, .generic, .matter, .requests, .home:
            world.receive(FuzzInput.messages(bytes, defaultTopic: defaultTopic))
        case .frigate:
            // Frigate's messages, and the same bytes as a camera's live view signalling.
            world.receive(FuzzInput.messages(bytes, defaultTopic: defaultTopic))
            world.liveView(bytes)
        case .cloudSync:
            world.importSync(bytes)
            world.linkAnswer(bytes)
        case .cloudQuery:
            world.importReports(bytes)
            world.linkAnswer(bytes)
        case .cloudExecute:
            _ = try? world.cloud.parseExecuteRequest(bytes, source: "fuzz")
            _ = try? world.cloud.parseQueryRequest(bytes, source: "fuzz")
        case .fulfillment: world.fulfill(bytes)
        case .json: Self.json(bytes)
        case .mappings: world.mappings(bytes)
        case .config: _ = CLIInputs.readServeConfiguration(bytes)
        case .registry: world.restore(FuzzInput.messages(bytes, defaultTopic: "Device"))
        case .cli:
            var retained: [String: [UInt8]] = [:]
            for message in FuzzInput.messages(bytes, defaultTopic: defaultTopic) {
                retained[message.topic] = message.payload
            }
            _ = CLIInputs.renderRetained(retained)
        case .homekitPairing: HomeKitInputs.pairing(bytes)
        case .homekitRequests: HomeKitInputs.requests(bytes, table: world.homeKitTable)
        case .matterDevice: MatterDeviceInputs.datagrams(bytes)
        case .matterInteraction: MatterInteractionInputs.interactions(bytes)
        case .matterCase: MatterCASEInputs.events(bytes)
        case .matterTLV: MatterTLVInputs.roundTrip(bytes)
        }
    }

    /// The topic of a record that names none.
    var defaultTopic: String {
        switch self {
        case .zigbee2mqtt: "zigbee2mqtt/Hall light"
        case .tasmota: "stat/plug/RESULT"
        case .shelly: "shellies/shelly1pm-fuzz/relay/0"
        case .homeassistant: "homeassistant/switch/fuzz/config"
        case .generic: "home/hall-relay/state"
        case .frigate: "frigate/events"
        case .matter: "matter/default/message"
        case .requests: "traitbridge/devices/z2m-0x00158d0001000001/set"
        case .home: "traitbridge/bridge/request/automation-add/1"
        case .cli: "traitbridge/devices/fuzz/state"
        default: ""
        }
    }

    /// Parse, serialize, parse again: the second text must equal the first (serialization is a
    /// fixed point), and the first paths of the document must have a place in the source (a
    /// config or mappings error names one; each walks the text, so a few are enough here).
    static func json(_ bytes: [UInt8]) {
        elementsAgree(bytes)
        projectionAgrees(bytes)
        textAgrees(bytes)
        guard let document = try? JSONDocument.parse(bytes) else { return }
        let text = document.root.value.serializedBytes()
        let again: JSONDocument
        do {
            again = try JSONDocument.parse(text)
        } catch {
            preconditionFailure("serialized JSON does not parse: \(error)")
        }
        precondition(again.root.value.serializedBytes() == text, "serialization is not a fixed point")
        let map = JSONSourceMap(bytes: bytes)
        var paths: [JSONPath] = [.root]
        var queue: [(JSON, JSONPath)] = [(document.root, .root)]
        while let (value, path) = queue.popLast(), paths.count < 16 {
            for (key, member) in value.members {
                queue.append((member, path.appending(key)))
                paths.append(path.appending(key))
            }
            for (index, element) in value.elements.enumerated() {
                queue.append((element, path.appending(index)))
                paths.append(path.appending(index))
            }
        }
        for path in paths.prefix(16) { _ = map.location(of: path) }
    }

    /// Reading an array element by element accepts exactly the arrays a whole parse accepts,
    /// with the same elements (zigbee2mqtt's device list is read that way).
    static func elementsAgree(_ bytes: [UInt8]) {
        let whole = try? JSONDocument.parse(bytes, maxDepth: 16)
        var elements: [[UInt8]] = []
        let streamed = Result { () throws(JSONParseError) -> Bool in
            try JSONDocument.forEachElement(ofArray: bytes, maxDepth: 16) { _, element in
                elements.append(element.value.serializedBytes())
            }
        }
        switch streamed {
        case .success(true):
            precondition(whole?.root.kind == .array, "an array read element by element does not parse whole")
            precondition(
                whole?.root.elements.map { $0.value.serializedBytes() } == elements,
                "elements differ from the whole parse")
        case .success(false):
            precondition(whole?.root.kind != .array, "a whole array was not read element by element")
        case .failure:
            precondition(whole == nil, "an array that parses whole failed element by element")
        }
    }

    /// A projected parse (zigbee2mqtt's device entries are read that way) accepts exactly the
    /// texts a whole parse accepts, refuses the others with the same error, and keeps what the
    /// projection names.
    static func projectionAgrees(_ bytes: [UInt8]) {
        let projection = JSONProjection.members([
            "a": .all, "b": .allExcept(["c", "d"]), "e": .members(["f": .all]), "g": .eachMember(.members(["h": .all])),
        ])
        let whole = Result { () throws(JSONParseError) in try JSONDocument.parse(bytes, maxDepth: 16) }
        let projected = Result { () throws(JSONParseError) in
            try JSONDocument.parse(bytes, maxDepth: 16, projection: projection)
        }
        switch (whole, projected) {
        case (.success(let whole), .success(let projected)):
            precondition(
                projection.applied(to: whole.root.value) == projection.applied(to: projected.root.value),
                "a projected parse kept something else than the projection names")
        case (.failure(let whole), .failure(let projected)):
            precondition(whole == projected, "a projected parse refused with another error: \(projected) vs \(whole)")
        case (.success, .failure(let error)): preconditionFailure("a projected parse refused JSON: \(error)")
        case (.failure(let error), .success):
            preconditionFailure("a projected parse accepted what is not JSON: \(error)")
        }
        var plain: [JSONValue] = []
        var viaProjection: [JSONValue] = []
        let elements = Result { () throws(JSONParseError) in
            try JSONDocument.forEachElement(ofArray: bytes, maxDepth: 16) { _, element in plain.append(element.value) }
        }
        let projectedElements = Result { () throws(JSONParseError) in
            try JSONDocument.forEachElement(ofArray: bytes, maxDepth: 16, projection: projection) { _, element in
                viaProjection.append(element.value)
            }
        }
        switch (elements, projectedElements) {
        case (.success(let a), .success(let b)):
            precondition(a == b, "read with a projection, the text is an array and without it is not (or back)")
            precondition(
                plain.map(projection.applied(to:)) == viaProjection.map(projection.applied(to:)),
                "elements read with a projection keep something else than the projection names")
        case (.failure(let a), .failure(let b)):
            precondition(a == b, "elements read with a projection are refused with another error: \(b) vs \(a)")
        default:
            preconditionFailure(
                "elements read with and without a projection disagree: \(elements) vs \(projectedElements)")
        }
    }

    /// A member kept as text (``JSONProjection/text(_:)``), read again, is what a whole parse reads
    /// through the text's own projection (a member whose key has escapes is kept as a value).
    static func textAgrees(_ bytes: [UInt8]) {
        guard let whole = try? JSONDocument.parse(bytes, maxDepth: 16) else { return }
        let inner = JSONProjection.allExcept(["x"])
        let projected: JSONDocument
        do {
            projected = try JSONDocument.parse(
                bytes, maxDepth: 16, projection: .members(["t": .text(.all), "v": .text(inner), "u": .all]))
        } catch {
            preconditionFailure("a parse with text members refused JSON: \(error)")
        }
        for (key, projection) in [("t", JSONProjection.all), ("v", inner)] {
            guard let member = whole.root[key] else {
                precondition(projected.root[key] == nil, "a text member appeared from nowhere")
                continue
            }
            let expected = projection.applied(to: member.value)
            let kept = projected.root[key]
            let reread = kept?.string.flatMap { try? JSONDocument.parse(Array($0.utf8), maxDepth: 17).root.value }
            precondition(reread == expected || kept?.value == member.value, "a text member reads as something else")
        }
    }
}
