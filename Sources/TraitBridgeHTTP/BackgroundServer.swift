import Dispatch
import Hummingbird
public import Logging
public import ServiceLifecycle
import Synchronization

/// The fulfillment listener for a caller that is not a service group (the demo): started on a
/// task, waited for until it listens, stopped gracefully.
public final class BackgroundServer: Sendable {
    private let group: ServiceGroup
    private let finished = DispatchSemaphore(value: 0)
    /// The base URL once listening.
    public let baseURL: String

    /// Starts `application` (and `companions`, such as the change feed its API streams) and waits
    /// (up to 10 s) until its socket is bound.
    public init(
        build: (@escaping @Sendable (String) -> Void) throws -> any Service, companions: [any Service] = [],
        logger: Logger
    ) throws {
        let listening = DispatchSemaphore(value: 0)
        let base = Mutex<String?>(nil)
        let application = try build { url in
            base.withLock { $0 = url }
            listening.signal()
        }
        group = ServiceGroup(configuration: .init(services: [application] + companions, logger: logger))
        Task { [group, finished] in
            do { try await group.run() } catch { logger.error("fulfillment listener stopped: \(error)") }
            finished.signal()
            listening.signal()  // a listener that failed to bind is not waited for
        }
        _ = listening.wait(timeout: .now() + 10)
        guard let url = base.withLock({ $0 }) else { throw FulfillmentSetupError.notListening }
        baseURL = url
    }

    /// Stops taking requests and waits (up to 5 s) for the listener to close.
    public func stop() {
        Task { [group] in await group.triggerGracefulShutdown() }
        _ = finished.wait(timeout: .now() + 5)
    }
}
