import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// A family that exists only in the tests, added the way a real one is: this folder (its family
/// and its plug-in), one registry line (``SampleSourceTests/registry``) and its conformance driver
/// (in ``SourceConformanceTests/drivers``). Nothing in the engine or the CLI knows it.
struct SampleFamily: SourceFamily {
    struct Settings: Sendable, Equatable {
        var prefix = "sample"
    }

    var name: String { SamplePlugin.family }
    var configKey: String? { "sample" }

    func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        var instance = SourceInstance(family: name)
        var settings = Settings()
        for (key, field, fieldPath) in try SourceSection.members(section, at: path, allowed: ["prefix", "locality"]) {
            switch key {
            case "prefix": settings.prefix = try SourceSection.topicPrefix(field, at: fieldPath)
            default: instance.locality = try SourceSection.locality(field, at: fieldPath)
            }
        }
        instance.settings = settings
        return [instance]
    }

    func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        SamplePlugin(
            catalog: context.catalog, instance: instance.name,
            prefix: (instance.settings as? Settings ?? Settings()).prefix,
            locality: instance.locality ?? context.defaultLocality)
    }
}
