/// How a unified command becomes attribute writes (`matter.OnOff` `toggle` → flip `onOff`),
/// whichever source feeds the trait: the source then turns the writes into its own messages.
/// Data in the catalog (`commandRules` in `mappings/catalog/*.json`), not code per source.
public struct CommandRule: Sendable {
    public enum Value: Sendable {
        case literal(AttributeValue)
        case argument(String)
    }
    public var trait: TraitID
    public var command: String
    /// Attribute writes: a literal, or a command argument (`$level`).
    public var sets: [(attribute: String, value: Value)]
    /// Flip the current value of this attribute.
    public var toggles: String?
    /// Why the bridge does not carry this command out, and what to send instead.
    public var unsupportedReason: String?
    /// Members set in the items of a list attribute (a camera's push transports: `transportStatus`
    /// in each of `currentConnections`, or in the one whose `connectionId` the command names).
    public var setsInItems: [ItemSet] = []

    /// One member set in the structure items of a list attribute; the whole list is written.
    public struct ItemSet: Sendable {
        /// The list attribute (`currentConnections`).
        public var list: String
        /// The member set in each item (`transportStatus`).
        public var member: String
        public var value: Value
        /// Only the item whose `member` equals this argument, when the command gives it
        /// (`connectionId` = `$connectionId`); every item otherwise.
        public var matching: (member: String, argument: String)?

        public init(list: String, member: String, value: Value, matching: (member: String, argument: String)? = nil) {
            self.list = list
            self.member = member
            self.value = value
            self.matching = matching
        }
    }

    public init(
        trait: TraitID, command: String, sets: [(attribute: String, value: Value)], toggles: String? = nil,
        unsupportedReason: String? = nil
    ) {
        self.trait = trait
        self.command = command
        self.sets = sets
        self.toggles = toggles
        self.unsupportedReason = unsupportedReason
    }
}

extension Catalog {
    /// The rule of a command, if the catalog has one.
    public func commandRule(_ trait: TraitID, _ name: String) -> CommandRule? {
        commandRulesByTrait[trait]?.first { $0.command == name }
    }
}
