import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// `mappings/matter/clusters.json`: the shipped table loads, serves every mandatory attribute and
/// accepts every mandatory command under each FeatureMap its rules can produce, carries Matter
/// 1.4.2's revisions, and a broken table is refused at its JSON path.
@Suite("Matter cluster table")
struct MatterClusterTableTests {
    static let catalog = try! CatalogLoader.load(mappingsDirectory: Paths.mappings)
    static let table = try! MatterClusterTable.load(mappingsDirectory: Paths.mappings, catalog: catalog)

    /// Attributes the bridge computes itself, so the table gives no constant for them.
    static let computed: [TraitID: Set<String>] = [.matter("ColorControl"): ["colorCapabilities"]]
    /// Clusters whose commands the bridge answers itself: Identify never reaches the device.
    static let answeredLocally: Set<TraitID> = [.matter("Identify")]

    @Test("the shipped table loads against the shipped catalog")
    func shippedTable() throws {
        let table = Self.table
        #expect(table.deviceTypeRevisions[DeviceTypeID(parsing: "matter.ExtendedColorLight")!] == 4)
        let onOff = try #require(table.clusters[.matter("OnOff")])
        #expect(onOff.clusterID == 0x0006)
        #expect(onOff.revision == 6)
        #expect(onOff.features.map(\.code) == ["LT"])
        #expect(onOff.features.first?.bit == 0)
        #expect(onOff.constants["startUpOnOff"] == .null)
        #expect(onOff.commands["onWithTimedOff"] == .some("on"))
        let level = try #require(table.clusters[.matter("LevelControl")])
        #expect(level.commands["step"] == .some(nil))
        #expect(level.commands["moveToClosestFrequency"] == nil)
        let color = try #require(table.clusters[.matter("ColorControl")])
        #expect(color.features.contains { $0.code == "CT" && $0.bit == 4 })
        #expect(color.constants["colorCapabilities"] == nil)
        #expect(table.clusters[.matter("Identify")]?.commands.isEmpty == true)
    }

    @Test("every device type of the table has a cluster row for each trait it requires")
    func deviceTypesHaveTheirClusters() throws {
        for (id, _) in Self.table.deviceTypeRevisions {
            let type = try #require(Self.catalog.deviceType(id))
            for trait in type.requiredTraits {
                #expect(Self.table.clusters[trait] != nil, "\(id) requires \(trait), which has no row")
            }
        }
    }

    /// Each (trait, attribute) some shipped source table fills: the model carries these when the
    /// device reports them, so the table needs no constant for them (onOff, currentLevel,
    /// measuredValue…). Read from the tables' JSON so that every table shape counts: an object with
    /// "trait" and "attribute", or "attribute" below an object that names the trait.
    static let filledBySources: Set<String> = {
        var filled: Set<String> = []
        func walk(_ json: JSON, trait: String?) {
            switch json.kind {
            case .object:
                let trait = json["trait"]?.string ?? trait
                if let trait, let attribute = json["attribute"]?.string { filled.insert(trait + "/" + attribute) }
                for (_, value) in json.members { walk(value, trait: trait) }
            case .array:
                for element in json.elements { walk(element, trait: trait) }
            default:
                break
            }
        }
        let folder = Paths.mappings + "/sources"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name),
                let document = try? JSONDocument.parse([UInt8](data), maxDepth: 128)
            else { continue }
            walk(document.root, trait: nil)
        }
        return filled
    }()

    /// Every feature set the rules of a row can produce: the `always` codes with any subset of the others.
    static func featureSets(_ cluster: MatterClusterTable.Cluster) -> [Set<String>] {
        let always = Set(cluster.features.filter { $0.condition == .always }.map(\.code))
        let optional = Array(Set(cluster.features.map(\.code)).subtracting(always)).sorted()
        return (0..<(1 << optional.count)).map { mask in
            always.union(optional.indices.filter { mask & (1 << $0) != 0 }.map { optional[$0] })
        }
    }

    @Test("under every feature set, each mandatory attribute is a constant or filled by a source")
    func mandatoryAttributes() throws {
        #expect(Self.filledBySources.contains("matter.OnOff/onOff"))
        for (id, cluster) in Self.table.clusters {
            let trait = try #require(Self.catalog.trait(id))
            let codes = Set(trait.features.map(\.code))
            for features in Self.featureSets(cluster) {
                for attribute in trait.attributes
                where Conformance.isMandatory(attribute.conformance, features: features, codes: codes) {
                    let served =
                        cluster.constants[attribute.name] != nil
                        || Self.filledBySources.contains("\(id)/\(attribute.name)")
                        || Self.computed[id]?.contains(attribute.name) == true
                    #expect(
                        served, "\(id) \(attribute.name) (\(attribute.conformance ?? "")) with \(features.sorted())")
                }
            }
        }
    }

    @Test("under every feature set, each mandatory command is accepted")
    func mandatoryCommands() throws {
        for (id, cluster) in Self.table.clusters where !Self.answeredLocally.contains(id) {
            let trait = try #require(Self.catalog.trait(id))
            let codes = Set(trait.features.map(\.code))
            for features in Self.featureSets(cluster) {
                for command in trait.commands
                where Conformance.isMandatory(command.conformance, features: features, codes: codes) {
                    #expect(
                        cluster.commands.keys.contains(command.name),
                        "\(id) \(command.name) (\(command.conformance ?? "")) with \(features.sorted())")
                }
            }
        }
    }

    @Test("conformance: otherwise lists, optional brackets, feature expressions")
    func conformance() {
        let codes: Set<String> = ["LF", "PA_LF", "TL", "OFFONLY", "HEAT", "COOL"]
        #expect(Conformance.isMandatory("M", features: [], codes: codes))
        #expect(!Conformance.isMandatory("O", features: [], codes: codes))
        #expect(Conformance.isMandatory("!OFFONLY", features: [], codes: codes))
        #expect(!Conformance.isMandatory("!OFFONLY", features: ["OFFONLY"], codes: codes))
        #expect(Conformance.isMandatory("LF & PA_LF, [LF]", features: ["LF", "PA_LF"], codes: codes))
        #expect(!Conformance.isMandatory("LF & PA_LF, [LF]", features: ["LF"], codes: codes))
        #expect(!Conformance.isMandatory("P, LF & PA_LF", features: ["LF", "PA_LF"], codes: codes))
        #expect(Conformance.isMandatory("HEAT | (COOL & TL)", features: ["COOL", "TL"], codes: codes))
        #expect(!Conformance.isMandatory("[HEAT]", features: ["HEAT"], codes: codes))
        #expect(!Conformance.isMandatory("NumberOfPrimaries > 0, O", features: [], codes: codes))
        #expect(Conformance.isMandatory("HoldTime & LF, LF", features: ["LF"], codes: codes))
    }

    @Test(
        "each device type's feature requirements of the reference are met by a rule",
        .enabled(if: Paths.shared != nil, "../shared/reference is not present"))
    func deviceTypeFeatures() throws {
        let clusters = try Self.referenceClusters()
        for type in try Self.reference("matter-device-types.json")["device_types"]?.elements ?? [] {
            guard let matterID = Self.hex(type["id"]?.string),
                let id = Self.catalog.deviceTypes.values.first(where: { $0.matterID == matterID })?.id,
                Self.table.deviceTypeRevisions[id] != nil
            else { continue }
            for requirement in type["clusters"]?.elements ?? [] where requirement["side"]?.string == "server" {
                guard let clusterID = Self.hex(requirement["id"]?.string),
                    let row = Self.table.clusters.values.first(where: { $0.clusterID == clusterID })
                else { continue }
                for feature in requirement["features"]?.elements ?? [] where feature["conformance"]?.string == "M" {
                    let name = feature["name"]?.string
                    let code =
                        feature["code"]?.string
                        ?? clusters[clusterID]?["features"]?.elements.first { $0["name"]?.string == name }?["code"]?
                        .string
                    let met = row.features.contains { rule in
                        guard rule.code == code else { return false }
                        switch rule.condition {
                        case .always, .whenAttribute: return true
                        case .whenDeviceType(let types): return types.contains(id)
                        }
                    }
                    #expect(met, "\(id) requires \(row.trait) feature \(name ?? "?") (\(code ?? "?"))")
                }
            }
        }
    }

    @Test(
        "revisions are Matter 1.4.2's",
        .enabled(if: Paths.shared != nil, "../shared/reference is not present"))
    func revisions() throws {
        var deviceTypes: [UInt32: Int64] = [:]
        for type in try Self.reference("matter-device-types.json")["device_types"]?.elements ?? [] {
            if let id = Self.hex(type["id"]?.string), let revision = type["revision"]?.int64 {
                deviceTypes[id] = revision
            }
        }
        for (id, revision) in Self.table.deviceTypeRevisions {
            let matterID = try #require(Self.catalog.deviceType(id)?.matterID)
            #expect(deviceTypes[matterID] == Int64(revision), "\(id)")
        }
        let clusters = try Self.referenceClusters()
        for (id, row) in Self.table.clusters {
            #expect(clusters[row.clusterID]?["revision"]?.int64 == Int64(row.revision), "\(id)")
        }
    }

    static func reference(_ name: String) throws -> JSON {
        let path = try #require(Paths.shared) + "/reference/" + name
        let bytes = try #require(FileManager.default.contents(atPath: path))
        return try JSONDocument.parse([UInt8](bytes), maxDepth: 128).root
    }

    /// The reference's clusters by id (a cluster defined for several ids under each).
    static func referenceClusters() throws -> [UInt32: JSON] {
        var byID: [UInt32: JSON] = [:]
        for cluster in try reference("matter-clusters.json")["clusters"]?.elements ?? [] {
            for entry in cluster["cluster_ids"]?.elements ?? [] {
                if let id = hex(entry["id"]?.string) { byID[id] = cluster }
            }
        }
        return byID
    }

    static func hex(_ text: String?) -> UInt32? {
        guard let text, text.hasPrefix("0x") else { return nil }
        return UInt32(text.dropFirst(2), radix: 16)
    }

    /// The problems of decoding `text`, one per line.
    static func problems(_ text: String) -> String {
        do {
            _ = try MatterClusterTable.decode(file: "matter/clusters.json", bytes: Array(text.utf8), catalog: catalog)
            return ""
        } catch {
            return error.problems.map(\.description).joined(separator: "\n")
        }
    }

    @Test("unknown keys, names, device types and duplicates are refused at their JSON path")
    func namesRefused() {
        let text = Self.problems(
            #"""
            {"deviceTypes": [{"deviceType": "matter.OnOffLight", "revision": 3},
                             {"deviceType": "matter.OnOffLight", "revision": 3},
                             {"deviceType": "matter.Lamp", "revision": 1},
                             {"deviceType": "google.AcUnit", "revision": 1, "extra": 1}],
             "clusters": [
               {"trait": "matter.OnOff", "revision": 6, "featurs": [],
                "features": [{"code": "XX", "always": true},
                             {"code": "LT", "always": true, "whenAttribute": "onOff"},
                             {"code": "LT", "whenAttribute": "brightness"},
                             {"code": "LT", "whenDeviceType": ["matter.Lamp"]},
                             {"code": "DF", "always": true}, {"code": "DF", "always": true}],
                "constants": {"dimmer": 1}, "commands": {"blink": "on"}},
               {"trait": "matter.OnOff", "revision": 6},
               {"trait": "matter.Nope", "revision": 1},
               {"trait": "google.AppSelector", "revision": 1}]}
            """#)
        let expected = [
            "deviceTypes[1].deviceType: matter.OnOffLight is listed twice; keep one entry",
            "deviceTypes[2].deviceType: unknown device type 'matter.Lamp'",
            "deviceTypes[3].deviceType: google.AcUnit has no matterId in mappings/catalog",
            "deviceTypes[3].extra: unknown key 'extra'",
            "clusters[0].featurs: unknown key 'featurs'",
            "clusters[0].features[0].code: matter.OnOff has no feature 'XX'; it has: LT, DF, OFFONLY",
            "clusters[0].features[1]: a feature rule has exactly one condition",
            "clusters[0].features[2].whenAttribute: matter.OnOff has no attribute 'brightness'",
            "clusters[0].features[3].whenDeviceType[0]: unknown device type matter.Lamp",
            "clusters[0].features[5]: the same rule for DF is written twice",
            "clusters[0].constants.dimmer: matter.OnOff has no attribute 'dimmer'",
            "clusters[0].commands.blink: matter.OnOff has no command 'blink'",
            "clusters[1].trait: matter.OnOff has two rows; merge them into one",
            "clusters[2].trait: unknown trait 'matter.Nope'",
            "clusters[3].trait: google.AppSelector has no clusterId in mappings/catalog",
        ]
        for line in expected { #expect(text.contains(line), "\(line)\n---\n\(text)") }
    }

    @Test("constants of the wrong format, out of range or null where not nullable are refused")
    func constantsRefused() {
        let text = Self.problems(
            #"""
            {"deviceTypes": [],
             "clusters": [
               {"trait": "matter.ColorControl", "revision": 7,
                "constants": {"currentHue": 255, "options": "none", "colorMode": 7, "numberOfPrimaries": null,
                              "startUpColorTemperatureMireds": null, "remainingTime": 0}},
               {"trait": "matter.OnOff", "revision": 6, "constants": {"onTime": null, "globalSceneControl": 1}}]}
            """#)
        let expected = [
            "clusters[0].constants.currentHue: currentHue cannot be 255: 255 is above the maximum 254",
            "clusters[0].constants.options: options cannot be \"none\": expected an integer (format bitmap)",
            "clusters[0].constants.colorMode: colorMode cannot be 7: 7 is not one of the valid values",
            "clusters[1].constants.onTime: onTime cannot be null: null is not allowed here",
            "clusters[1].constants.globalSceneControl: globalSceneControl cannot be 1: expected a boolean",
        ]
        for line in expected { #expect(text.contains(line), "\(line)\n---\n\(text)") }
        #expect(!text.contains("numberOfPrimaries"), "nullable: \(text)")
        #expect(!text.contains("startUpColorTemperatureMireds"), "nullable: \(text)")
        #expect(text.split(separator: "\n").count == expected.count, "\(text)")
    }

    @Test("commands without a command rule and revisions out of 1…65535 are refused")
    func commandsAndRevisionsRefused() {
        let text = Self.problems(
            #"""
            {"deviceTypes": [{"deviceType": "matter.OnOffLight", "revision": 0},
                             {"deviceType": "matter.DimmableLight", "revision": 65536},
                             {"deviceType": "matter.DoorLock", "revision": 2.5}],
             "clusters": [
               {"trait": "matter.LevelControl", "revision": 6,
                "commands": {"moveToLevel": "moveToLevel", "move": null, "step": "step", "stop": 1}},
               {"trait": "matter.OnOff"}]}
            """#)
        let expected = [
            "deviceTypes[0].revision: revision must be a whole number from 1 to 65535, found 0",
            "deviceTypes[1].revision: revision must be a whole number from 1 to 65535, found 65536",
            "deviceTypes[2].revision: revision must be a whole number from 1 to 65535, found 2.5",
            "clusters[0].commands.step: matter.LevelControl has no command rule 'step' in "
                + "mappings/catalog/command-rules.json; add one, or write null to answer step with FAILURE",
            "clusters[0].commands.stop: expected the name of a unified command, or null",
            "clusters[1]: missing required key 'revision'",
        ]
        for line in expected { #expect(text.contains(line), "\(line)\n---\n\(text)") }
        #expect(text.split(separator: "\n").count == expected.count, "\(text)")
    }
}
