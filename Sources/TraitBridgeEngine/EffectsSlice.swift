/// Performs a long event's effects in slices, in order (see ``BridgeState/effectsSlice``): the
/// runtime's `perform`, called inside its lock, after `publications` publications.
public struct EffectsSlice: Sendable {
    public var publications: Int
    public var perform: @Sendable (consuming BridgeEffects) -> Void

    public init(publications: Int, perform: @escaping @Sendable (consuming BridgeEffects) -> Void) {
        self.publications = publications
        self.perform = perform
    }
}
