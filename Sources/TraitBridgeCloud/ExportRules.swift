import TraitBridgeModel

/// Which devices Google is given (SYNC, QUERY, EXECUTE, Report State): every device by default;
/// `include` narrows to the devices it matches, `exclude` then takes some away. A device matches
/// a rule set by its id (TraitBridge's or the cloud's), its room (ignoring case) or its type (the
/// Google type, `LIGHT`, or any of its device types, `matter.DimmableLight`).
public struct ExportRules: Sendable, Hashable {
    public struct Match: Sendable, Hashable {
        public var ids: Set<String> = []
        public var rooms: Set<String> = []
        public var types: Set<String> = []

        public init(ids: Set<String> = [], rooms: Set<String> = [], types: Set<String> = []) {
            self.ids = ids
            self.rooms = Set(rooms.map { $0.lowercased() })
            self.types = types
        }

        public var isEmpty: Bool { ids.isEmpty && rooms.isEmpty && types.isEmpty }
    }

    public var include = Match()
    public var exclude = Match()

    public init(include: Match = Match(), exclude: Match = Match()) {
        self.include = include
        self.exclude = exclude
    }

    public var isEverything: Bool { include.isEmpty && exclude.isEmpty }

    /// Whether a device with this id, room and device types is given (HomeKit's use of the same
    /// rules: no cloud id, no Google type).
    public func allows(id: String, room: String?, types: [String]) -> Bool {
        func matches(_ match: Match) -> Bool {
            match.ids.contains(id) || room.map { match.rooms.contains($0.lowercased()) } == true
                || types.contains(where: match.types.contains)
        }
        if isEverything { return true }
        return (include.isEmpty || matches(include)) && !matches(exclude)
    }
}

extension GoogleC2C {
    /// Whether `rules` let Google see the device.
    public func isIncluded(_ input: CloudExportInput, by rules: ExportRules) -> Bool {
        if rules.isEverything { return true }
        return (rules.include.isEmpty || matches(input, rules.include)) && !matches(input, rules.exclude)
    }
}
