public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Frigate (the NVR) in the registry: the `frigate` section (its MQTT topic prefix, how long a
/// camera may go without stats, the event length its config records), `frigate.json` from the
/// mappings. Off unless the config file has the section: cameras are an integration one asks for.
public struct FrigateFamily: SourceFamily {
    public struct Settings: Sendable, Equatable {
        /// Frigate's `mqtt.topic_prefix`.
        public var topicPrefix = "frigate"
        /// Silence longer than this (no stats naming the camera, which Frigate sends every
        /// `mqtt.stats_interval`, 60 s by default) makes a camera unknown.
        public var staleness: Duration = .seconds(180)
        /// The longest event Frigate records, as its config file sets it (reported as the push
        /// transport's `maxDuration`; Frigate takes no change of it over MQTT).
        public var maxEventSeconds = 300
        /// go2rtc's API (`http://host:1984`, Frigate's own on port 1984): each camera's live view is
        /// its stream of the same name there (`/api/webrtc?src=<camera>`). `nil`: no live view.
        public var go2rtc: String?

        public init() {}
    }

    public init() {}

    public var name: String { FrigatePlugin.family }
    public var configKey: String? { "frigate" }
    public var tableFile: String? { "sources/frigate.json" }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try FrigateTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        let sections = try SourceSection.sections(section, at: path, family: name)
        var instances: [SourceInstance] = []
        for (body, bodyPath) in sections {
            var instance = SourceInstance.frigate()
            var settings = Settings()
            let allowed = ["instance", "topicPrefix", "locality", "stalenessSeconds", "maxEventSeconds", "go2rtc"]
            for (key, field, fieldAt) in try SourceSection.members(body, at: bodyPath, allowed: allowed) {
                switch key {
                case "instance": instance.name = try SourceSection.topicWord(field, at: fieldAt)
                case "topicPrefix": settings.topicPrefix = try SourceSection.topicPrefix(field, at: fieldAt)
                case "go2rtc":
                    guard let text = field.string, text.hasPrefix("http://") || text.hasPrefix("https://"),
                        text.utf8.count <= 512, !text.contains("?"), !text.contains("#"),
                        !text.contains(where: \.isWhitespace)
                    else {
                        throw SourceSettingsError(
                            fieldAt,
                            "expected go2rtc's API as an http(s) URL without query, e.g. \"http://127.0.0.1:1984\"")
                    }
                    settings.go2rtc = text.hasSuffix("/") ? String(text.dropLast()) : text
                case "locality": instance.locality = try SourceSection.locality(field, at: fieldAt)
                case "maxEventSeconds":
                    settings.maxEventSeconds = Int(try SourceSection.seconds(field, at: fieldAt).components.seconds)
                default: settings.staleness = try SourceSection.seconds(field, at: fieldAt)
                }
            }
            instance.settings = settings
            instances.append(instance)
        }
        let paths = sections.map(\.path)
        try SourceSection.requireUnique(instances, at: paths, family: name)
        try SourceSection.requireUnique(
            instances, at: paths, family: name, key: "topicPrefix",
            value: { ($0.settings as? Settings ?? Settings()).topicPrefix })
        return instances
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        guard let table = table as? FrigateTable else { return nil }
        return FrigatePlugin(
            instance: instance.name, settings: instance.settings as? Settings ?? Settings(), table: table,
            catalog: context.catalog, locality: instance.locality ?? context.defaultLocality)
    }
}

extension SourceInstance {
    /// Frigate's cameras under `topicPrefix`.
    public static func frigate(
        name: String = "default", topicPrefix: String = "frigate", locality: TraitLocality? = nil,
        staleness: Duration = .seconds(180), go2rtc: String? = nil
    ) -> SourceInstance {
        var settings = FrigateFamily.Settings()
        settings.topicPrefix = topicPrefix
        settings.staleness = staleness
        settings.go2rtc = go2rtc
        return SourceInstance(family: FrigatePlugin.family, name: name, locality: locality, settings: settings)
    }
}
