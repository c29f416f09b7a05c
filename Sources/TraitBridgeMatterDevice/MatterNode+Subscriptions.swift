import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction
import TraitBridgeMatterTransport

/// Subscriptions (Core §8.5): primed with a full report and SubscribeResponse on the request's
/// exchange, then reported on exchanges the node opens — what changed, no sooner than the minimum
/// interval after the last report, and an empty report (keep-alive) at the maximum interval.
extension MatterNode {
    mutating func subscribe(
        _ request: SubscribeRequest, on exchange: ExchangeKey, session: SessionTable<Peer>.Secure,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        guard request.minIntervalFloorSeconds <= request.maxIntervalCeilingSeconds else {
            log(.info, "Matter: a subscription whose floor is above its ceiling was refused")
            return answer(.invalidAction, on: exchange, now: now, using: &generator)
        }
        if !request.keepSubscriptions {
            interactions.subscriptions.removeAll {
                $0.peerNodeID == session.peerNodeID && $0.fabricIndex == session.fabricIndex
            }
        }
        let fabric = RootEndpoint.FabricAccess(
            accessingFabricIndex: session.fabricIndex, isFabricFiltered: request.isFabricFiltered)
        let targets: [ReadTarget]
        do {
            targets = try readTargets(
                request.attributeRequests, filters: request.dataVersionFilters, subject: session.subject)
        } catch {
            log(.info, "Matter: a subscription was refused: \(error)")
            return answer(error.status, on: exchange, now: now, using: &generator)
        }
        guard interactions.subscriptions.count < limits.subscriptions else {
            log(.warning, "Matter: \(limits.subscriptions) subscriptions are held: a new one was refused")
            return answer(.resourceExhausted, on: exchange, now: now, using: &generator)
        }
        let id = interactions.newSubscriptionID(using: &generator)
        let reports = reports(targets, fabric: fabric)
        let primingEvents = events(
            request.eventRequests, from: Self.minimum(request.eventFilters), for: session.subject)
        let chunks: [[UInt8]]
        do {
            chunks = try ReportChunker().payloads(
                for: reports, events: primingEvents.map(\.report), subscriptionID: id, isRead: false)
        } catch {
            log(.warning, "Matter: a subscription could not be primed: \(error)")
            return answer(.resourceExhausted, on: exchange, now: now, using: &generator)
        }
        // The ceiling the client asked, at least the floor and a second (Core §8.5.1: the publisher chooses
        // MaxInterval between the floor and the larger of the ceiling and its own limit).
        let maxSeconds = max(request.maxIntervalCeilingSeconds, request.minIntervalFloorSeconds, 1)
        var subscription = InteractionState.Subscription(
            id: id, session: session.key, subject: session.subject, fabricIndex: session.fabricIndex,
            peerNodeID: session.peerNodeID,
            paths: request.attributeRequests, isFabricFiltered: request.isFabricFiltered,
            minInterval: .seconds(Int(request.minIntervalFloorSeconds)), maxInterval: .seconds(Int(maxSeconds)),
            lastReport: now, seenChangeCount: changeStamp, eventPaths: request.eventRequests)
        subscription.reported = encodings(reports)
        subscription.seenDataCount = dataModel.changeCount
        subscription.nextEvent = primingEvents.last.map { $0.number &+ 1 } ?? events.nextNumber
        subscription.inFlight = exchange
        interactions.subscriptions.append(subscription)
        log(
            .info,
            "Matter: subscription \(id) primed (\(reports.count) attributes, \(chunks.count) messages,"
                + " every \(request.minIntervalFloorSeconds)…\(maxSeconds) s)",
            ["tb.matter.session": "\(session.localSessionID)"])
        sendReport(chunks, after: .subscribeResponse(subscriptionID: id), on: exchange, now: now, using: &generator)
    }

    /// The priming report was answered: SubscribeResponse, and the subscription is live.
    mutating func primed(
        _ id: UInt32, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        guard let index = interactions.subscriptionIndex(id) else {
            return endInteraction(exchange, now: now, using: &generator)
        }
        let maxSeconds = UInt16(clamping: interactions.subscriptions[index].maxInterval.components.seconds)
        interactions.subscriptions[index].isLive = true
        interactions.subscriptions[index].inFlight = nil
        interactions.subscriptions[index].lastReport = now
        let response = SubscribeResponse(subscriptionID: id, maxIntervalSeconds: maxSeconds)
        sendInteraction(response.encoded, .subscribeResponse, on: exchange, now: now, using: &generator)
        endInteraction(exchange, now: now, using: &generator)
    }

    /// Reports what changed to each live subscription whose minimum interval has passed, and keep-alives
    /// to those whose maximum interval has; the others wait for ``nextDeadline``.
    mutating func reportChanges(now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        for id in interactions.subscriptions.map(\.id) {
            guard let index = interactions.subscriptionIndex(id), let due = dueReport(index, now: now) else { continue }
            interactions.subscriptions[index].seenChangeCount = changeStamp
            interactions.subscriptions[index].seenDataCount = dataModel.changeCount
            if let last = due.events.last { interactions.subscriptions[index].nextEvent = last.number &+ 1 }
            guard !due.reports.isEmpty || !due.events.isEmpty || due.isKeepAlive else { continue }
            deliver(
                due.reports, events: due.events.map(\.report), to: index, updating: due.updates, now: now,
                using: &generator)
        }
    }

    /// What the subscription at `index` is due now: the attributes changed since its last report (those of
    /// the clusters changed since, compared with what it was told) and the new events; nil when nothing is
    /// due yet. Reads only: the subscription's copy here ends before it is written to.
    private func dueReport(_ index: Int, now: ContinuousClock.Instant) -> DueReport? {
        let subscription = interactions.subscriptions[index]
        guard subscription.isLive, subscription.inFlight == nil else { return nil }
        let changed = subscription.seenChangeCount != changeStamp
        let keepAliveDue = now >= subscription.lastReport + subscription.maxInterval
        guard (changed && now >= subscription.lastReport + subscription.minInterval) || keepAliveDue else {
            return nil
        }
        var due = DueReport(isKeepAlive: keepAliveDue)
        guard changed else { return due }
        due.events = events(subscription.eventPaths, from: subscription.nextEvent, for: subscription.subject)
        let fabric = RootEndpoint.FabricAccess(
            accessingFabricIndex: subscription.fabricIndex, isFabricFiltered: subscription.isFabricFiltered)
        let paths = Self.narrowed(subscription.paths, to: dataModel.clusters(changedAfter: subscription.seenDataCount))
        let targets = (try? readTargets(paths, subject: subscription.subject, isRequest: false)) ?? []
        for report in reports(targets, fabric: fabric) {
            guard let path = report.path.concrete else { continue }
            let bytes = Self.comparable(report)
            if subscription.reported[path] != bytes {
                due.updates[path] = bytes
                due.reports.append(report)
            }
        }
        return due
    }

    /// A subscription's report as ``dueReport(_:now:)`` works it out.
    private struct DueReport {
        var reports: [AttributeReport] = []
        var updates: [ConcreteAttributePath: [UInt8]] = [:]
        var events: [EventLog.Record] = []
        let isKeepAlive: Bool

        init(isKeepAlive: Bool) { self.isKeepAlive = isKeepAlive }
    }

    /// Sends `reports` and `events` to the subscription at `index` and notes `updates` (the reported
    /// values by path) as what it was last told: only those entries are written, the rest of what it
    /// holds is not copied.
    mutating func deliver(
        _ reports: [AttributeReport], events: [EventReport], to index: Int,
        updating updates: [ConcreteAttributePath: [UInt8]], now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let (id, session) = (interactions.subscriptions[index].id, interactions.subscriptions[index].session)
        let chunks: [[UInt8]]
        let exchange: ExchangeKey
        do {
            chunks = try ReportChunker().payloads(for: reports, events: events, subscriptionID: id, isRead: false)
            exchange = try exchanges.initiate(on: session)
        } catch {
            log(.warning, "Matter: subscription \(id) could not be reported: \(error); it ends")
            interactions.subscriptions.remove(at: index)
            return
        }
        log(.debug, "Matter: subscription \(id) reported \(reports.count) attributes, \(events.count) events")
        for (path, bytes) in updates { interactions.subscriptions[index].reported[path] = bytes }
        interactions.subscriptions[index].lastReport = now
        interactions.subscriptions[index].inFlight = exchange
        sendReport(chunks, after: .delivered(subscriptionID: id), on: exchange, now: now, using: &generator)
    }

    /// Each report's value (or status) as bytes by concrete path, to compare later reports with.
    private func encodings(_ reports: [AttributeReport]) -> [ConcreteAttributePath: [UInt8]] {
        var encoded: [ConcreteAttributePath: [UInt8]] = [:]
        for report in reports { if let path = report.path.concrete { encoded[path] = Self.comparable(report) } }
        return encoded
    }

    /// What tells a changed attribute: its value, not the cluster's version (which moves with any attribute).
    private static func comparable(_ report: AttributeReport) -> [UInt8] {
        if case .data(let data) = report { return TLVElement(value: data.data).encoded }
        return report.encoded
    }

    /// Changes an application endpoint from the device side (or the bridge's source): subscribers hear of it.
    public mutating func update<Endpoint: ApplicationEndpoint>(
        endpoint id: UInt16, as type: Endpoint.Type, now: ContinuousClock.Instant, _ change: (inout Endpoint) -> Void
    ) -> [Effect] {
        defer { effects = [] }
        var generator = SystemRandomNumberGenerator()
        dataModel.update(id, as: type, change)
        reportChanges(now: now, using: &generator)
        return effects
    }

    /// A subscription's paths cut down to the clusters that changed: a report reads those again, not
    /// the whole node. A path with wildcard flags (skip the root, global attributes…) is kept whole:
    /// its flags apply to wildcards only.
    static func narrowed(
        _ paths: [AttributePath], to changed: [(endpoint: UInt16, cluster: UInt32)]
    ) -> [AttributePath] {
        var narrowed: [AttributePath] = []
        var seen = Set<AttributePath>()
        for path in paths {
            guard path.wildcardFlags == nil else {
                if seen.insert(path).inserted { narrowed.append(path) }
                continue
            }
            for (endpoint, cluster) in changed
            where (path.endpoint ?? endpoint) == endpoint && (path.cluster ?? cluster) == cluster {
                var concrete = path
                (concrete.endpoint, concrete.cluster) = (endpoint, cluster)
                if seen.insert(concrete).inserted { narrowed.append(concrete) }
            }
        }
        return narrowed
    }

    /// Takes the bridge's new descriptions of `changed` endpoints and drops `removed` ones (devices
    /// changed, came or went): subscribers hear of what changed, the root's PartsList included.
    public mutating func replace(
        _ changed: [any ApplicationEndpoint], removing removed: Set<UInt16>, now: ContinuousClock.Instant
    ) -> [Effect] {
        defer { effects = [] }
        var generator = SystemRandomNumberGenerator()
        let everything = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)
        var flips: [(endpoint: UInt16, isReachable: Bool)] = []
        for endpoint in changed {
            let path = ConcreteAttributePath(
                endpoint: endpoint.id, cluster: Self.bridgedInformation, attribute: Self.reachable)
            guard case .success(.bool(let was)) = dataModel.read(path, fabric: everything),
                case .bool(let isReachable)? = endpoint.attributes(of: Self.bridgedInformation)[Self.reachable],
                was != isReachable
            else { continue }
            flips.append((endpoint.id, isReachable))
        }
        // The events the changed values stand for (a lock locked, a contact opened), read against the old values.
        let valueEvents = changed.flatMap { endpoint in
            ValueEvents.events(of: endpoint) { cluster, attribute in
                let path = ConcreteAttributePath(endpoint: endpoint.id, cluster: cluster, attribute: attribute)
                return try? dataModel.read(path, fabric: everything).get()
            }.map { (endpoint: endpoint.id, rule: $0.rule, data: $0.data) }
        }
        dataModel.apply(changed, removing: removed, using: &generator)
        for recorded in valueEvents {
            events.record(
                endpoint: recorded.endpoint, cluster: recorded.rule.cluster, event: recorded.rule.event,
                priority: recorded.rule.priority, data: recorded.data, at: now)
        }
        // ReachableChanged (Bridged Device Basic Information event 3, INFO): once per flip, none at start.
        for flip in flips {
            events.record(
                endpoint: flip.endpoint, cluster: Self.bridgedInformation, event: 0x03, priority: .info,
                data: .contextStructure([0: .bool(flip.isReachable)]), at: now)
            log(.info, "Matter: endpoint \(flip.endpoint) is \(flip.isReachable ? "reachable" : "unreachable")")
        }
        reportChanges(now: now, using: &generator)
        return effects
    }

    /// Bridged Device Basic Information and its Reachable attribute.
    static var bridgedInformation: UInt32 { 0x0039 }
    static var reachable: UInt32 { 0x0011 }
}
