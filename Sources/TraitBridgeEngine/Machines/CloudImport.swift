import TraitBridgeCloud
import TraitBridgeModel

/// Google Cloud-to-cloud on the way in: the translator (SYNC, QUERY, EXECUTE in Google's terms),
/// the devices imported from SYNC files and cloud links, and the links themselves.
///
/// Composes two machines that change together (a link that goes takes its devices); each keeps
/// its own state private. The translator is read-only: `nil` without
/// `mappings/cloud/google-c2c.json`.
struct CloudImport: Sendable {
    let c2c: GoogleC2C?
    /// The imported devices, by C2C id and by the device they are on.
    var devices = CloudImportIndex()
    /// The cloud links: which there are, which fail, their staleness budgets, their request ids.
    var links: CloudLinkSupervisor

    init(c2c: GoogleC2C?, links: Set<String>) {
        self.c2c = c2c
        self.links = CloudLinkSupervisor(links: links)
    }

    /// Whether a source feeds imported traits: they keep what the cloud said (no plug-in resolves
    /// their connectivity), their commands go back over the cloud, their device joins a local device
    /// of the same identity, and the registry restores them from their origins. The one place the
    /// engine tells an import from a plug-in's source.
    static func feeds(_ source: SourceReference?) -> Bool { source?.family == GoogleC2C.family }
}
