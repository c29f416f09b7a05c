import Foundation
import Logging
import Synchronization
import TraitBridgeJSON
import TraitBridgeStore

/// The edge clients that send what the state machine asks of the outside (a camera's live view
/// signalling, a cloud link's EXECUTE) and hand their answers back as events.
extension Bridge {
    /// Registers the client that sends cameras' live view signalling (called inside the state lock:
    /// it must only hand the request on).
    public func sendSignalling(with sender: @escaping @Sendable (SignallingRequest) -> Void) {
        signallingSender.withLock { $0 = sender }
    }

    /// A camera's endpoint answered the offer `requestID` (or could not be reached).
    public func signallingAnswered(_ answer: SignallingAnswer, requestID: String) {
        state.withLock { perform($0.signallingAnswered(answer, requestID: requestID, now: Date())) }
    }

    /// Hands each request to the edge client that sends it (a camera's signalling, a link's EXECUTE).
    func handOn(_ signalling: [SignallingRequest], _ linkRequests: [LinkRequest]) {
        for request in signalling {
            if let send = signallingSender.withLock({ $0 }) {
                send(request)
            } else {
                logger.warning("no live view client runs: \(request.requestID) not sent (its command times out)")
            }
        }
        for request in linkRequests {
            if let send = linkSenders.withLock({ $0[request.link] }) {
                send(request)
            } else {
                logger.warning("no client for cloud link \(request.link): EXECUTE not sent")
            }
        }
    }
}

extension Bridge {
    /// Hands a `history` request to the history's thread; its answer comes back through the lock.
    func ask(_ history: HistoryRecorder, _ query: HistoryQuery) {
        history.query(query.filter) { [weak self] result in
            self?.answer(query.sink, result.map { BridgeState.historyAnswer($0, query: query) })
        }
    }

    /// The same for `history-availability`.
    func ask(_ history: HistoryRecorder, _ query: HistoryAvailabilityQuery) {
        history.availability(from: query.from, to: query.to, sets: query.sets) { [weak self] result in
            self?.answer(query.sink, result.map { BridgeState.availabilityAnswer($0, query: query) })
        }
    }

    private func answer(_ sink: ResponseSink, _ result: Result<[UInt8], StoreError>) {
        let payload: [UInt8]
        switch result {
        case .success(let bytes): payload = bytes
        case .failure(let error):
            let answer: JSONValue = ["status": "error", "code": "historyFailed", "message": .string("\(error)")]
            payload = answer.serializedBytes()
        }
        state.withLock { _ in
            var effects = BridgeEffects()
            effects.answer(sink, payload)
            perform(effects)
        }
    }
}
