public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// Matter Servers in the registry: the `matter` section, one server (`{"url": …}`) or a list
/// of them, each an instance whose nodes come over its WebSocket (the CLI connects to ``servers(in:)``).
/// Off unless configured; no table (the catalog is its table).
public struct MatterFamily: SourceFamily {
    public struct Settings: Sendable, Equatable {
        /// `ws://host:5580/ws`: named in logs and reasons; the edge client connects to it.
        public var url: String

        public init(url: String) {
            self.url = url
        }
    }

    static let keys = ["url", "instance", "locality"]

    public init() {}

    public var name: String { MatterSource.family }
    public var configKey: String? { "matter" }

    /// `ws://host[:port][/path]` or `wss://…`; the text says what is wrong.
    public static func urlProblem(_ text: String) -> String? {
        if text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "the URL has a space or a control character in it; write it as ws://HOST:5580/ws"
        }
        guard text.hasPrefix("ws://") || text.hasPrefix("wss://") else {
            return "expected a WebSocket URL such as ws://127.0.0.1:5580/ws (the Matter Server's default)"
        }
        let host = text.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        return host.isEmpty ? "the URL has no host: ws://HOST:5580/ws" : nil
    }

    /// The servers the configured instances name: the edge connections to make.
    public static func servers(in instances: [SourceInstance]) -> [(instance: String, url: String)] {
        instances.compactMap { instance in
            guard instance.family == MatterSource.family, let settings = instance.settings as? Settings else {
                return nil
            }
            return (instance.name, settings.url)
        }
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        let sections = try SourceSection.sections(section, at: path, family: name)
        var instances: [SourceInstance] = []
        for (value, at) in sections {
            var instance = SourceInstance(family: name, locality: .localPeer)
            var url = ""
            let shape = #"expected an object {"url": "ws://127.0.0.1:5580/ws"}"#
            for (key, field, fieldAt) in try SourceSection.members(value, at: at, allowed: Self.keys, shape: shape) {
                switch key {
                case "url":
                    guard let text = field.string else { throw SourceSettingsError(fieldAt, "expected a ws:// URL") }
                    if let problem = Self.urlProblem(text) { throw SourceSettingsError(fieldAt, problem) }
                    url = text
                case "instance":
                    guard let text = field.string, !text.isEmpty, text.utf8.count <= 32,
                        text.unicodeScalars.allSatisfy({
                            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        })
                    else {
                        throw SourceSettingsError(
                            fieldAt, "expected a short name of a–z, 0–9 and - (it becomes part of device ids)")
                    }
                    instance.name = text
                default: instance.locality = try SourceSection.locality(field, at: fieldAt)
                }
            }
            guard !url.isEmpty else { throw SourceSettingsError(at, #""url" is required: ws://127.0.0.1:5580/ws"#) }
            instance.settings = Settings(url: url)
            instances.append(instance)
        }
        try SourceSection.requireUnique(instances, at: sections.map(\.path), family: name)
        return instances
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        MatterPlugin(
            source: MatterSource(catalog: context.catalog, instance: instance.name),
            locality: instance.locality ?? .localPeer)
    }
}

extension SourceInstance {
    /// A Matter Server whose nodes the bridge reads over its WebSocket.
    public static func matter(name: String = "default", url: String, locality: TraitLocality = .localPeer)
        -> SourceInstance
    {
        SourceInstance(
            family: MatterSource.family, name: name, locality: locality, settings: MatterFamily.Settings(url: url))
    }
}
