import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
public import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The interaction model on secure sessions (Core §8): reads answered with chunked reports,
/// invokes and writes against the data model (with timed requests), subscriptions primed here and
/// reported in ``MatterNode+Subscriptions``. A request that does not decode is answered with a
/// StatusResponse, never trusted further.
extension MatterNode {
    mutating func receiveInteraction(
        _ message: Message, on exchange: ExchangeKey, session: SessionTable<Peer>.Secure, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let payload = message.payload
        let metadata = ["tb.matter.session": "\(session.localSessionID)", "tb.matter.peer": "\(session.peer)"]
        do throws(InteractionMessageError) {
            switch InteractionModelOpcode(rawValue: message.protocolHeader.opcode) {
            case .statusResponse:
                let status = try StatusResponse(decoding: payload).status
                statusResponse(status, on: exchange, now: now, using: &generator)
            case .readRequest:
                read(try ReadRequest(decoding: payload), on: exchange, session: session, now: now, using: &generator)
            case .subscribeRequest:
                subscribe(
                    try SubscribeRequest(decoding: payload), on: exchange, session: session, now: now,
                    using: &generator)
            case .invokeRequest:
                invoke(
                    try InvokeRequest(decoding: payload), on: exchange, session: session, now: now, using: &generator)
            case .writeRequest:
                write(try WriteRequest(decoding: payload), on: exchange, session: session, now: now, using: &generator)
            case .timedRequest:
                let request = try TimedRequest(decoding: payload)
                interactions.timed[exchange] = now + .milliseconds(Int(request.timeoutMilliseconds))
                answer(.success, on: exchange, keepOpen: true, now: now, using: &generator)
            default:
                log(.debug, "Matter: interaction opcode \(message.protocolHeader.opcode) is not served", metadata)
                answer(.invalidAction, on: exchange, now: now, using: &generator)
            }
        } catch {
            log(.info, "Matter: an interaction that does not decode was refused: \(error)", metadata)
            answer(error.status, on: exchange, now: now, using: &generator)
        }
    }

    /// A StatusResponse with `status`, then the exchange closes (unless a timed action follows).
    mutating func answer(
        _ status: StatusCode, on exchange: ExchangeKey, keepOpen: Bool = false, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        sendInteraction(StatusResponse(status).encoded, .statusResponse, on: exchange, now: now, using: &generator)
        if !keepOpen { endInteraction(exchange, now: now, using: &generator) }
    }

    mutating func sendInteraction(
        _ payload: [UInt8], _ opcode: InteractionModelOpcode, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        send(payload, opcode: opcode.rawValue, protocolID: .interactionModel, on: exchange, now: now, using: &generator)
    }

    /// Closes the exchange and forgets what waited on it.
    mutating func endInteraction(
        _ exchange: ExchangeKey, now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        for id in interactions.exchangeClosed(exchange) {
            log(.info, "Matter: subscription \(id) ended: its report was not answered")
        }
        closeExchange(exchange, now: now, using: &generator)
    }

    // MARK: Read

    private mutating func read(
        _ request: ReadRequest, on exchange: ExchangeKey, session: SessionTable<Peer>.Secure,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        let fabric = RootEndpoint.FabricAccess(
            accessingFabricIndex: session.fabricIndex, isFabricFiltered: request.isFabricFiltered)
        let chunks: [[UInt8]]
        do {
            let targets = try readTargets(
                request.attributeRequests, filters: request.dataVersionFilters, subject: session.subject)
            let recorded = events(
                request.eventRequests, from: Self.minimum(request.eventFilters), for: session.subject)
            chunks = try ReportChunker().payloads(
                for: reports(targets, fabric: fabric), events: recorded.map(\.report), isRead: true)
        } catch let error as PathExpansionError {
            log(.info, "Matter: a read was refused: \(error)")
            return answer(error.status, on: exchange, now: now, using: &generator)
        } catch {
            log(.warning, "Matter: a read could not be answered: \(error)")
            return answer(.resourceExhausted, on: exchange, now: now, using: &generator)
        }
        sendReport(chunks, after: .done, on: exchange, now: now, using: &generator)
    }

    /// What `paths` come to for `subject` (Core §8.4.3.2): a wildcard leaves out what the subject may not
    /// read, a concrete path it may not read is UNSUPPORTED_ACCESS.
    func readTargets(
        _ paths: [AttributePath], filters: [DataVersionFilter] = [], subject: AccessSubject,
        isRequest: Bool = true
    ) throws(PathExpansionError) -> [ReadTarget] {
        // A request's paths are bounded; a report's (its subscription's paths cut to the changed clusters)
        // are as many as the clusters that changed.
        let limit = NodeLayout.ExpansionLimits().maxRequestPaths
        guard !isRequest || paths.count <= limit else { throw .tooManyPaths(count: paths.count, limit: limit) }
        let layout = dataModel.layout
        var targets: [ReadTarget] = []
        for path in paths {
            for target in try layout.expand([path], dataVersionFilters: filters) {
                guard case .attribute(let concrete) = target else {
                    targets.append(target)
                    continue
                }
                let required = AccessRequirement.read(endpoint: concrete.endpoint, cluster: concrete.cluster)
                if permits(subject, required, endpoint: concrete.endpoint, cluster: concrete.cluster) {
                    targets.append(target)
                } else if path.concrete != nil {
                    targets.append(.status(concrete, .unsupportedAccess))
                }
            }
        }
        return targets
    }

    /// The events `paths` ask for from `minimum` on that `subject` may read (what reading their cluster
    /// needs: View, Administer for Access Control's), a fabric-sensitive one only by its fabric's subjects.
    func events(_ paths: [EventPath], from minimum: UInt64, for subject: AccessSubject) -> [EventLog.Record] {
        events.matching(paths, from: minimum).filter { record in
            if let fabric = record.fabricIndex {
                guard case .node(_, let fabricIndex, _) = subject, fabricIndex == fabric else { return false }
            }
            let required = AccessRequirement.read(endpoint: record.endpoint, cluster: record.cluster)
            return permits(subject, required, endpoint: record.endpoint, cluster: record.cluster)
        }
    }

    /// The lowest event number the filters ask for (Core §8.9.2.4: EventMin), 0 without one.
    static func minimum(_ filters: [EventFilter]) -> UInt64 { filters.map(\.eventMinimum).max() ?? 0 }

    /// The reports of expanded targets: each value with its cluster's version, or its status.
    func reports(_ targets: [ReadTarget], fabric: RootEndpoint.FabricAccess) -> [AttributeReport] {
        targets.map { target in
            switch target {
            case .status(let path, let code):
                return .status(AttributeStatus(path: AttributePath(path), status: InteractionStatus(code)))
            case .attribute(let path):
                switch dataModel.read(path, fabric: fabric) {
                case .success(let value):
                    let version = dataModel.dataVersion(endpoint: path.endpoint, cluster: path.cluster)
                    return .data(AttributeData(path: AttributePath(path), data: value, dataVersion: version))
                case .failure(let code):
                    return .status(AttributeStatus(path: AttributePath(path), status: InteractionStatus(code)))
                }
            }
        }
    }

    /// Sends the first chunk; the rest wait for the client's StatusResponse to each.
    mutating func sendReport(
        _ chunks: [[UInt8]], after: InteractionState.AfterReport, on exchange: ExchangeKey,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        guard let first = chunks.first else { return endInteraction(exchange, now: now, using: &generator) }
        sendInteraction(first, .reportData, on: exchange, now: now, using: &generator)
        if chunks.count == 1, after == .done {
            endInteraction(exchange, now: now, using: &generator)
        } else {
            interactions.pending[exchange] = .init(remaining: Array(chunks.dropFirst()), after: after)
        }
    }

    /// The client answered a chunk (or a subscription's report): the next chunk, or what follows the last.
    private mutating func statusResponse(
        _ status: StatusCode, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        guard var pending = interactions.pending[exchange] else {
            log(.debug, "Matter: a StatusResponse (\(status)) on an exchange that waits for none was dropped")
            return endInteraction(exchange, now: now, using: &generator)
        }
        guard status == .success else {
            log(.info, "Matter: the client answered a report with \(status): the interaction ends")
            return endInteraction(exchange, now: now, using: &generator)
        }
        if !pending.remaining.isEmpty {
            let next = pending.remaining.removeFirst()
            interactions.pending[exchange] = pending
            sendInteraction(next, .reportData, on: exchange, now: now, using: &generator)
            if pending.remaining.isEmpty, pending.after == .done {
                interactions.pending[exchange] = nil
                endInteraction(exchange, now: now, using: &generator)
            }
            return
        }
        interactions.pending[exchange] = nil
        switch pending.after {
        case .done: endInteraction(exchange, now: now, using: &generator)
        case .subscribeResponse(let id): primed(id, on: exchange, now: now, using: &generator)
        case .delivered(let id):
            if let index = interactions.subscriptionIndex(id) { interactions.subscriptions[index].inFlight = nil }
            endInteraction(exchange, now: now, using: &generator)
        }
    }

    // MARK: Invoke and write

    private mutating func invoke(
        _ request: InvokeRequest, on exchange: ExchangeKey, session: SessionTable<Peer>.Secure,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        if let refusal = timedRefusal(isTimed: request.isTimedRequest, on: exchange, now: now) {
            return answer(refusal, on: exchange, now: now, using: &generator)
        }
        let context = CommandContext(
            sessionKind: session.kind, fabricIndex: session.fabricIndex,
            attestationChallenge: session.keys.attestationChallenge, now: now)
        var responses: [CommandResponse] = []
        var changed: [ConcreteAttributePath] = []
        for command in request.invokeRequests.prefix(limits.commandsPerInvoke) {
            guard let endpoint = command.path.endpoint else {
                responses.append(
                    .status(path: command.path, status: .init(.unsupportedEndpoint), commandRef: command.commandRef))
                continue
            }
            let required = AccessRequirement.invoke(endpoint: endpoint, cluster: command.path.cluster)
            guard permits(session.subject, required, endpoint: endpoint, cluster: command.path.cluster) else {
                log(.info, "Matter: \(command.path) refused: the ACL grants the session no \(required)")
                responses.append(
                    .status(path: command.path, status: .init(.unsupportedAccess), commandRef: command.commandRef))
                continue
            }
            let before = dataModel.changeCount
            let result = dataModel.invoke(
                endpoint: endpoint, cluster: command.path.cluster, command: command.path.command,
                fields: command.fields ?? .structure([]), context: context)
            if endpoint != RootEndpoint.endpoint, dataModel.changeCount != before {
                changed += applicationAttributes(endpoint: endpoint, cluster: command.path.cluster)
            }
            if case .status(.success) = result,
                dataModel.forwards(endpoint: endpoint, cluster: command.path.cluster, command: command.path.command)
            {
                let action = EndpointRequest.Action.invoke(
                    command: command.path.command, fields: command.fields ?? .structure([]))
                var forwarded = EndpointRequest(endpoint: endpoint, cluster: command.path.cluster, action: action)
                // One command that waits for an answer: the answer is the device's (or SUCCESS at the deadline).
                if request.invokeRequests.count == 1, !request.suppressResponse,
                    interactions.deferred.count < limits.deferredInvokes
                {
                    let path = CommandPath(
                        endpoint: endpoint, cluster: command.path.cluster, command: command.path.command)
                    forwarded.token = interactions.deferInvoke(
                        .init(
                            exchange: exchange, path: path, commandRef: command.commandRef,
                            deadline: now + limits.deferredInvokeWait))
                    effects.append(.forwarded(forwarded))
                    log(.info, "Matter: \(command.path) handed to the device; the answer waits for it")
                    apply(dataModel.takeNotices(), from: session.key, now: now)
                    if !changed.isEmpty { effects.append(.attributesChanged(changed)) }
                    return
                }
                effects.append(.forwarded(forwarded))
            }
            switch result {
            case .response(let id, let fields):
                let path = CommandPath(endpoint: endpoint, cluster: command.path.cluster, command: id)
                responses.append(.command(CommandData(path: path, fields: fields, commandRef: command.commandRef)))
            case .status(let code):
                responses.append(.status(path: command.path, status: .init(code), commandRef: command.commandRef))
            case .clusterStatus(let code):
                let status = InteractionStatus(.failure, clusterStatus: code)
                responses.append(.status(path: command.path, status: status, commandRef: command.commandRef))
            }
            log(
                .info, "Matter: \(command.path) invoked: \(result.summary)",
                ["tb.matter.session": "\(session.localSessionID)"])
        }
        apply(dataModel.takeNotices(), from: session.key, now: now)
        if !changed.isEmpty { effects.append(.attributesChanged(changed)) }
        if request.suppressResponse { return endInteraction(exchange, now: now, using: &generator) }
        let response = InvokeResponse(invokeResponses: responses, moreChunkedMessages: false)
        sendInteraction(response.encoded, .invokeResponse, on: exchange, now: now, using: &generator)
        endInteraction(exchange, now: now, using: &generator)
        reportChanges(now: now, using: &generator)
    }

    /// The device answered a command handed on with `token`: the controller's InvokeResponse carries
    /// `status`. Nothing when the deadline answered it already or its exchange is gone.
    public mutating func completeInvoke(_ token: UInt64, status: StatusCode, now: ContinuousClock.Instant) -> [Effect] {
        defer { effects = [] }
        var generator = SystemRandomNumberGenerator()
        answerDeferred(token, status: status, now: now, using: &generator)
        return effects
    }

    /// Answers every deferred invoke whose deadline passed with SUCCESS: the command was delivered and
    /// not refused in time; a later refusal gives the device's state again in a report.
    mutating func expireDeferredInvokes(now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator)
    {
        for (token, invoke) in interactions.deferred.sorted(by: { $0.key < $1.key }) where invoke.deadline <= now {
            log(.info, "Matter: \(invoke.path) answered SUCCESS: the device had not answered within the wait")
            answerDeferred(token, status: .success, now: now, using: &generator)
        }
    }

    private mutating func answerDeferred(
        _ token: UInt64, status: StatusCode, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        guard let invoke = interactions.deferred.removeValue(forKey: token) else { return }
        let response = InvokeResponse(
            invokeResponses: [.status(path: invoke.path, status: .init(status), commandRef: invoke.commandRef)],
            moreChunkedMessages: false)
        sendInteraction(response.encoded, .invokeResponse, on: invoke.exchange, now: now, using: &generator)
        endInteraction(invoke.exchange, now: now, using: &generator)
        log(.info, "Matter: \(invoke.path) answered \(status)")
    }

    private func applicationAttributes(endpoint: UInt16, cluster: UInt32) -> [ConcreteAttributePath] {
        dataModel.attributeIDs(endpoint, cluster).map {
            ConcreteAttributePath(endpoint: endpoint, cluster: cluster, attribute: $0)
        }
    }
}

extension RootEndpoint.InvokeResult {
    /// For the log: the status, or the response command's id (never its fields: they may hold certificates).
    var summary: String {
        switch self {
        case .status(let code): "\(code)"
        case .response(let id, _): "response command \(id)"
        case .clusterStatus(let code): "FAILURE (cluster status \(code))"
        }
    }
}
