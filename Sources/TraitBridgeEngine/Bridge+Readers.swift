import Synchronization
public import TraitBridgeModel

/// What readers of a running bridge get (the CLI, the HTTP API and its change stream, tests): a
/// copy of the state, the devices that changed, whether it runs. None of them changes the bridge.
extension Bridge {
    /// A copy of the current state (for tests and the CLI), which performs nothing on this bridge.
    public var snapshot: BridgeState { state.withLock { $0.withoutEffectsSlice } }

    /// Registers `observer` for the devices whose state or description the bridge publishes anew.
    public func observeChanges(
        _ observer: @escaping @Sendable (_ states: [DeviceID], _ descriptions: [DeviceID]) -> Void
    ) {
        observers.withLock { $0.append(observer) }
    }

    /// Whether ``start()`` ran and ``stop()`` has not.
    public var isRunning: Bool { ticker.withLock { $0.isRunning } }
}
