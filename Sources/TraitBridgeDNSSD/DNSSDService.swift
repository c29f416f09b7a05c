/// One DNS-SD service instance as a plain value: what HomeKit (`_hap._tcp`) and the Matter device
/// (`_matterc._udp`, `_matter._tcp`) want announced, independent of the responder that announces
/// it. It exists so the records are computed (and tested) as values, and so `AvahiAdvertiser` can
/// tell what changed between two sets by comparing them.
public struct DNSSDService: Hashable, Sendable {
    /// The instance name (the service's label in `<name>.<type>.local`).
    public var name: String
    /// The service type with its protocol, e.g. `_hap._tcp`.
    public var type: String
    public var port: Int
    /// Subtype labels, each announced as `<label>._sub.<type>`, e.g. `_L3840`.
    public var subtypes: [String]
    /// The TXT record's keys and values.
    public var txt: [String: String]

    public init(name: String, type: String, port: Int, subtypes: [String] = [], txt: [String: String] = [:]) {
        self.name = name
        self.type = type
        self.port = port
        self.subtypes = subtypes
        self.txt = txt
    }

    /// The subtypes as DNS-SD names: `_L3840._sub._matterc._udp`.
    public var subtypeNames: [String] { subtypes.map { "\($0)._sub.\(type)" } }

    /// The TXT record's strings, `key=value`, in key order.
    public var txtStrings: [String] { txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
}
