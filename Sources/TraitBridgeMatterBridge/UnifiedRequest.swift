import TraitBridgeMapping
import TraitBridgeMatterCodec
public import TraitBridgeMatterDevice
public import TraitBridgeModel

/// A controller's command or write in the unified model's words: the trait and device type it is
/// for, the unified command with its arguments by field name, or the attribute and value. It exists
/// so what a Matter controller asks goes through the same command path as every other caller.
public struct UnifiedRequest: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case invoke(command: String, arguments: [String: AttributeValue])
        case write(attribute: String, value: AttributeValue)
    }

    public var trait: TraitID
    public var deviceTypeKey: String
    public var action: Action
}

extension BridgedDevicePlanner {
    /// `request` on an endpoint serving the device type `deviceTypeKey`, as a unified request; the
    /// error says why it cannot be one (the node answered it already: this is for the log).
    public func unified(_ request: EndpointRequest, deviceTypeKey: String) -> Result<UnifiedRequest, RequestError> {
        guard let traitID = traitsByCluster[request.cluster], let definition = catalog.trait(traitID),
            let row = table.clusters[traitID]
        else {
            return .failure(RequestError("cluster \(request.cluster) has no trait in mappings/matter/clusters.json"))
        }
        switch request.action {
        case .invoke(let id, let fields):
            guard let command = definition.commands.first(where: { $0.id == id }) else {
                return .failure(RequestError("\(traitID) has no command \(id) in the catalog"))
            }
            guard let mapped = row.commands[command.name], let unifiedName = mapped else {
                return .failure(RequestError("\(traitID).\(command.name) is accepted but no unified command does it"))
            }
            // Matter numbers a command's fields from 0 in the order the catalog lists them. The catalog lists
            // none for the *WithOnOff commands, whose fields the specification gives as their base command's.
            var fieldNames = command.fields.map(\.name)
            if fieldNames.isEmpty, command.name.hasSuffix("WithOnOff"),
                let base = definition.command(named: String(command.name.dropLast("WithOnOff".count)))
            {
                fieldNames = base.fields.map(\.name)
            }
            var arguments: [String: AttributeValue] = [:]
            if case TLVValue.structure(let elements) = fields {
                for element in elements {
                    guard case .context(let tag) = element.tag, Int(tag) < fieldNames.count,
                        let value = MatterValues.attributeValue(element.value)
                    else { continue }
                    arguments[fieldNames[Int(tag)]] = value
                }
            }
            return .success(
                UnifiedRequest(
                    trait: traitID, deviceTypeKey: deviceTypeKey,
                    action: .invoke(command: unifiedName, arguments: arguments)))
        case .write(let id, let value):
            guard let attribute = definition.attributes.first(where: { $0.id == id }) else {
                return .failure(RequestError("\(traitID) has no attribute \(id) in the catalog"))
            }
            guard let converted = MatterValues.attributeValue(value) else {
                return .failure(RequestError("\(traitID).\(attribute.name): the written value has no unified kind"))
            }
            return .success(
                UnifiedRequest(
                    trait: traitID, deviceTypeKey: deviceTypeKey,
                    action: .write(attribute: attribute.name, value: converted)))
        }
    }
}

/// Why a controller's request could not be put in the unified model's words.
public struct RequestError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
