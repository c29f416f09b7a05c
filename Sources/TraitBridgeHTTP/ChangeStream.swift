import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// `GET /api/v1/changes`: the devices as a flow, in the three shapes of the Home APIs'
/// change-monitoring guide, as Server-Sent Events. Every shape starts with the whole filtered list
/// (`event: list`), unless it resumes (`Last-Event-ID`) from an event the feed still holds; then
/// `stream` sends each change by id (`event: change`: kind added, updated or removed, and the
/// device's summary), `batched` gathers the changes of `window` milliseconds into one message
/// (`event: changes`, at most one per window), and `list` sends the whole filtered list again
/// after each change. A client that falls behind the feed is told (`event: dropped`) and closed.
struct ChangeStream: Sendable {
    enum Shape: String { case list, batched, stream }

    let bridge: Bridge
    let feed: ChangeFeed

    /// What a client asked for: its filter, the shape, the batch window, where it resumes.
    struct Options: Sendable {
        var filter = DeviceFilter()
        var shape = Shape.stream
        var window = 1000
        var lastEventID: Int?
    }

    /// One message of the stream, whatever carries it: SSE's `id`/`event`/`data` lines, or one
    /// WebSocket text frame `{"id", "event", "data"}`.
    struct Message: Sendable {
        var id: Int
        var event: String
        var data: [UInt8]

        var serverSentEvent: ByteBuffer {
            var buffer = ByteBuffer()
            buffer.writeString("id: \(id)\nevent: \(event)\ndata: ")
            buffer.writeBytes(data)
            buffer.writeString("\n\n")
            return buffer
        }

        var frame: ByteBuffer {
            var buffer = ByteBuffer()
            buffer.writeString(#"{"id":\#(id),"event":"\#(event)","data":"#)
            buffer.writeBytes(data)
            buffer.writeString("}")
            return buffer
        }
    }

    /// The query's options (`Last-Event-ID` too), or the problem to answer.
    static func options(_ request: Request) -> Result<Options, APIEndpoints.Refused> {
        var options = Options()
        options.lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { Int($0) }
        func refuse(_ title: String, _ detail: String) -> Result<Options, APIEndpoints.Refused> {
            .failure(.init(response: APIEndpoints.problem(.badRequest, title, detail, request)))
        }
        for (name, value) in request.uri.queryParameters {
            let text = String(value)
            if let refusal = APIEndpoints.refuseParameter(name, text, request) {
                return .failure(.init(response: refusal))
            }
            if APIEndpoints.applyFilter(name, text, to: &options.filter) { continue }
            switch name {
            case "shape":
                guard let chosen = Shape(rawValue: text) else {
                    return refuse("unknown shape", "shape '\(text)' is not one of list, batched, stream")
                }
                options.shape = chosen
            case "window":
                guard let milliseconds = Int(text), (100...60_000).contains(milliseconds) else {
                    return refuse("window out of range", "window is milliseconds from 100 to 60000")
                }
                options.window = milliseconds
            case "lastEventId":
                guard let id = Int(text), (0...9_007_199_254_740_991).contains(id) else {
                    return refuse("bad event id", "lastEventId is a number from 0 to 2^53 - 1")
                }
                options.lastEventID = id
            default: continue
            }
        }
        return .success(options)
    }

    /// `GET /api/v1/changes`: the stream as Server-Sent Events.
    func respond(_ request: Request, channel: any Channel) -> Response {
        let options: Options
        switch Self.options(request) {
        case .success(let chosen): options = chosen
        case .failure(let refusal): return refusal.response
        }
        let subscription = feed.subscribe(after: options.lastEventID)
        let watch = StallWatch(channel: channel, limit: feed.clientStallLimit)
        let body = ResponseBody { [self] writer in
            try await watch.guarding {
                try await run(options, subscription) { message in
                    try await watch.write { try await writer.write(message.serverSentEvent) }
                }
                try await writer.finish(nil)
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: body)
    }

    /// Sends `options`' shape of the feed from `subscription` on, until the client falls behind
    /// (told, then the end) or goes away (the task is cancelled); unsubscribes at the end.
    func run(
        _ options: Options, _ subscription: ChangeFeed.Subscription, send: (Message) async throws -> Void
    ) async throws {
        defer { feed.unsubscribe(subscription.client) }
        var client = Client(filter: options.filter, cursor: subscription.after)
        if subscription.isReset {
            try await send(client.list(bridge.snapshot, id: subscription.after))
        } else if let replayed = feed.events(after: subscription.after) {
            // Resuming: it had the devices the list names now, except those the replay adds
            // first, and those the replay removes or updates first it had too.
            client.known = Set(bridge.snapshot.deviceSummaries(options.filter).compactMap { Client.id(of: $0) })
            var seen: Set<String> = []
            for event in replayed where seen.insert(event.device.rawValue).inserted {
                if event.kind == .added {
                    client.known.remove(event.device.rawValue)
                } else {
                    client.known.insert(event.device.rawValue)
                }
            }
        }
        for await _ in subscription.wake {
            if options.shape == .batched { try? await Task.sleep(for: .milliseconds(options.window)) }
            guard let events = feed.events(after: client.cursor) else {
                try await send(Client.dropped(client.cursor))
                break
            }
            guard let last = events.last else { continue }
            client.cursor = last.sequence
            let messages: [Message] =
                switch options.shape {
                case .stream: events.compactMap { client.change($0) }
                case .batched: client.batch(events).map { [$0] } ?? []
                case .list: client.relevant(events) ? [client.list(bridge.snapshot, id: last.sequence)] : []
                }
            for message in messages { try await send(message) }
        }
    }

    /// One client's view: its filter, where it is in the feed, and the devices it has been sent.
    struct Client {
        let filter: DeviceFilter
        var cursor: Int
        var known: Set<String> = []

        init(filter: DeviceFilter, cursor: Int) {
            self.filter = filter
            self.cursor = cursor
        }

        /// A summary's device id.
        static func id(of summary: JSONValue) -> String? {
            if case .string(let id)? = summary["id"] { return id }
            return nil
        }

        mutating func list(_ state: BridgeState, id: Int) -> Message {
            let summaries = state.deviceSummaries(filter)
            known = Set(summaries.compactMap { Client.id(of: $0) })
            return Message(id: id, event: "list", data: BridgeState.deviceList(summaries))
        }

        /// What one event means to this client (filtered): added, updated, removed, or nothing.
        mutating func entry(_ event: ChangeFeed.Event) -> JSONValue? {
            let id = event.device.rawValue
            if let summary = event.summary, filter.matches(summary) {
                let kind = known.insert(id).inserted ? "added" : "updated"
                return ["kind": .string(kind), "device": .string(id), "state": summary]
            }
            guard known.remove(id) != nil else { return nil }
            return ["kind": "removed", "device": .string(id)]
        }

        mutating func change(_ event: ChangeFeed.Event) -> Message? {
            entry(event).map { Message(id: event.sequence, event: "change", data: $0.serializedBytes()) }
        }

        /// The window's changes, one entry per device (its latest), in the order they came.
        mutating func batch(_ events: [ChangeFeed.Event]) -> Message? {
            var order: [String] = []
            var latest: [String: JSONValue] = [:]
            for event in events {
                guard let entry = entry(event) else { continue }
                let id = event.device.rawValue
                if latest[id] == nil { order.append(id) }
                latest[id] = entry
            }
            guard !order.isEmpty, let last = events.last else { return nil }
            let changes = JSONValue.array(order.compactMap { latest[$0] })
            return Message(
                id: last.sequence, event: "changes", data: JSONValue.object(["changes": changes]).serializedBytes())
        }

        mutating func relevant(_ events: [ChangeFeed.Event]) -> Bool {
            var any = false
            for event in events where entry(event) != nil { any = true }
            return any
        }

        static func dropped(_ cursor: Int) -> Message {
            Message(
                id: cursor, event: "dropped",
                data: Array(
                    #"{"reason":"this client fell behind the changes the bridge keeps; reconnect with Last-Event-ID"}"#
                        .utf8))
        }
    }
}
