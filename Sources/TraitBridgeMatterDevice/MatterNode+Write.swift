import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction
import TraitBridgeMatterTransport

/// Writes (Core §8.7): each path checked against the ACL once, the ACL itself a fabric-scoped list
/// (``writeAccessControl(_:append:session:now:)``), an application attribute's change reported to
/// subscribers and handed to its device; and the timed-request rule writes and invokes share.
extension MatterNode {
    mutating func write(
        _ request: WriteRequest, on exchange: ExchangeKey, session: SessionTable<Peer>.Secure,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        if let refusal = timedRefusal(isTimed: request.isTimedRequest, on: exchange, now: now) {
            return answer(refusal, on: exchange, now: now, using: &generator)
        }
        guard !request.moreChunkedMessages else {
            log(.info, "Matter: a chunked write was refused: this node takes writes in one message")
            return answer(.invalidAction, on: exchange, now: now, using: &generator)
        }
        var statuses: [AttributeStatus] = []
        var changed: [ConcreteAttributePath] = []
        // Access is checked once per path: a list written as "empty, then append each entry" keeps the
        // access its first part had, even when that part took the writer's own entry away (as the SDK does).
        var allowed: [ConcreteAttributePath: Bool] = [:]
        for data in request.writeRequests.prefix(limits.commandsPerInvoke) {
            let isList = data.path.concrete == RootEndpoint.accessControlList
            guard let path = data.path.concrete, data.path.listIndex == nil || isList && data.path.listIndex == .append
            else {
                statuses.append(AttributeStatus(path: data.path, status: .init(.unsupportedWrite)))
                continue
            }
            let required = AccessRequirement.write(endpoint: path.endpoint, cluster: path.cluster)
            let permitted =
                allowed[path] ?? permits(session.subject, required, endpoint: path.endpoint, cluster: path.cluster)
            allowed[path] = permitted
            guard permitted else {
                statuses.append(AttributeStatus(path: data.path, status: .init(.unsupportedAccess)))
                continue
            }
            if isList {
                let status = writeAccessControl(
                    data.data, append: data.path.listIndex == .append, session: session, now: now)
                statuses.append(AttributeStatus(path: data.path, status: .init(status)))
                continue
            }
            let before = dataModel.changeCount
            let status = dataModel.write(path, value: data.data)
            if path.endpoint != RootEndpoint.endpoint, dataModel.changeCount != before { changed.append(path) }
            if status == .success, dataModel.forwards(path) {
                let action = EndpointRequest.Action.write(attribute: path.attribute, value: data.data)
                effects.append(
                    .forwarded(EndpointRequest(endpoint: path.endpoint, cluster: path.cluster, action: action)))
            }
            statuses.append(AttributeStatus(path: data.path, status: .init(status)))
        }
        if !changed.isEmpty { effects.append(.attributesChanged(changed)) }
        if !request.suppressResponse {
            sendInteraction(
                WriteResponse(writeResponses: statuses).encoded, .writeResponse, on: exchange, now: now,
                using: &generator)
        }
        endInteraction(exchange, now: now, using: &generator)
        reportChanges(now: now, using: &generator)
    }

    /// Core §8.7.2.4: a timed action needs its TimedRequest on the same exchange, in time; an untimed one none.
    mutating func timedRefusal(isTimed: Bool, on exchange: ExchangeKey, now: ContinuousClock.Instant)
        -> StatusCode?
    {
        let deadline = interactions.timed.removeValue(forKey: exchange)
        switch (isTimed, deadline) {
        case (false, nil): return nil
        case (true, let deadline?): return now <= deadline ? nil : .timeout
        default: return .timedRequestMismatch
        }
    }
}
