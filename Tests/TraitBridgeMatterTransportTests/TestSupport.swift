import TraitBridgeTesting

/// A generator that returns the same value every time: `Constant(0)` makes every MRP jitter 0 and
/// `Constant(.max)` makes it 255 (the SDK's `computeMaxPossible`), since the layer uses the low
/// byte of each draw.
struct Constant: RandomNumberGenerator {
    var value: UInt64

    init(_ value: UInt64) { self.value = value }

    mutating func next() -> UInt64 { value }
}
