public import TraitBridgeMapping
public import TraitBridgeModel

/// How one key of a source's state payload feeds one attribute, and back for commands.
///
/// Built once at discovery, then used for every message of that device: the hot path looks up the
/// payload key and runs the pipeline, with no table search per message.
public struct SourceBinding: Sendable {
    public var address: TraitAddress
    public var attribute: String
    /// Top-level payload key (`state`, `brightness`, `state_l1`, `color`).
    public var payloadKey: String
    /// Member inside an object value (`x` of `color`), when the value is an object.
    public var fieldKey: String?
    public var pipeline: ValuePipeline
    public var metadata: AttributeMetadata
    /// Whether the source accepts writes of this value (zigbee2mqtt access bit 2).
    public var isWritable: Bool
    /// The source's own range (zigbee2mqtt value_min/value_max), for clamping commands.
    public var sourceRange: ClosedRange<Double>?
    /// Whether the source expects integers for this key.
    public var isIntegral: Bool

    public init(
        address: TraitAddress, attribute: String, payloadKey: String, fieldKey: String? = nil,
        pipeline: ValuePipeline, metadata: AttributeMetadata, isWritable: Bool,
        sourceRange: ClosedRange<Double>? = nil, isIntegral: Bool = false
    ) {
        self.address = address
        self.attribute = attribute
        self.payloadKey = payloadKey
        self.fieldKey = fieldKey
        self.pipeline = pipeline
        self.metadata = metadata
        self.isWritable = isWritable
        self.sourceRange = sourceRange
        self.isIntegral = isIntegral
    }

    /// Source value → model value fitted to the metadata; `nil` when it cannot be converted.
    public func modelValue(from sourceValue: AttributeValue) -> AttributeValue? {
        pipeline.forward(sourceValue, fittingTo: metadata)
    }

    /// Model value → source value, clamped to the source's range.
    public func sourceValue(from modelValue: AttributeValue) -> AttributeValue? {
        guard let value = pipeline.inverse(modelValue, integral: isIntegral) else { return nil }
        guard let range = sourceRange, let number = value.numericValue else { return value }
        return FiniteNumber.attributeValue(min(range.upperBound, max(range.lowerBound, number)))
    }
}

/// One value a message reported, ready for the model.
public struct AttributeUpdate: Sendable, Hashable {
    public var address: TraitAddress
    public var attribute: String
    public var value: AttributeValue

    public init(address: TraitAddress, attribute: String, value: AttributeValue) {
        self.address = address
        self.attribute = attribute
        self.value = value
    }
}

/// A problem with one device or one message, reported alone (the rest goes on).
public struct SourceProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The topic or JSON path where it is.
    public var location: String
    public var message: String

    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}
