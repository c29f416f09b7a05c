import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// `traitbridge mappings validate [DIR]`.
struct MappingsValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate every file of a mappings folder and print each problem as file:line:col: path: message.",
        discussion: """
            A folder with its own catalog/ is validated alone; a folder without one is validated over \
            the catalog embedded in traitbridge, as serve --mappings reads it. With no folder: the \
            embedded catalog. Exits 0 when every file is valid, 1 when any problem was found.

            Examples:
              traitbridge mappings validate
              traitbridge mappings validate ./my-mappings --json
            """
    )

    @Argument(help: "The mappings folder (default: the embedded catalog).")
    var directory: String?

    @Flag(
        help: """
            Print the result as JSON: {"valid": Bool, "traits": N, "deviceTypes": N, "sourceTables": N, \
            "genericDevices": N, "problems": [...]}.
            """
    )
    var json = false

    func run() throws {
        // A complete folder alone; anything else over the embedded catalog (kept alive until the end).
        let overlay: MappingsFolder?
        if let directory, FileManager.default.fileExists(atPath: directory + "/catalog") {
            overlay = nil
        } else {
            do { overlay = try MappingsFolder(overlay: directory) } catch {
                print(error.description)
                throw ExitCode.failure
            }
        }
        let directory = overlay?.path ?? self.directory ?? "mappings"
        let name = overlay?.description ?? directory
        func place(_ text: String) -> String { overlay?.explain(text) ?? text }
        var (catalog, problems) = CatalogLoader.validate(mappingsDirectory: directory)
        var sourceTables = 0
        for family in SourceRegistry.standard.families {
            guard let file = family.tableFile, FileManager.default.fileExists(atPath: directory + "/" + file) else {
                continue
            }
            guard let catalog, problems.isEmpty else { break }
            do {
                _ = try family.loadTable(mappingsDirectory: directory, catalog: catalog)
                sourceTables += 1
            } catch {
                problems += error.problems
            }
        }
        if let catalog, problems.isEmpty, FileManager.default.fileExists(atPath: directory + "/cloud/google-c2c.json") {
            do {
                _ = try GoogleC2CTable.load(mappingsDirectory: directory, catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        let homeKitTable = directory + "/homekit/accessories.json"
        if let catalog, problems.isEmpty, FileManager.default.fileExists(atPath: homeKitTable) {
            do {
                _ = try HomeKitTable.load(mappingsDirectory: directory, catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        let homeAssistantTable = directory + "/homeassistant/entities.json"
        if let catalog, problems.isEmpty, FileManager.default.fileExists(atPath: homeAssistantTable) {
            do {
                _ = try HomeAssistantExportTable.load(mappingsDirectory: directory, catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        let matterTable = directory + "/" + MatterClusterTable.file
        if let catalog, problems.isEmpty, FileManager.default.fileExists(atPath: matterTable) {
            do {
                _ = try MatterClusterTable.load(mappingsDirectory: directory, catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        let presentationTable = directory + "/" + PresentationTable.relativePath
        if let catalog, problems.isEmpty, FileManager.default.fileExists(atPath: presentationTable) {
            do {
                _ = try PresentationTable.load(mappingsDirectory: directory, catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        var genericDevices = 0
        if let catalog, problems.isEmpty {
            do {
                genericDevices = try GenericDevicesLoader.load(mappingsDirectory: directory, catalog: catalog).count
            } catch {
                problems += error.problems
            }
        }
        if json {
            var result = JSONObject()
            result["valid"] = .bool(problems.isEmpty)
            result["traits"] = .int(Int64(catalog?.traits.count ?? 0))
            result["deviceTypes"] = .int(Int64(catalog?.deviceTypes.count ?? 0))
            result["sourceTables"] = .int(Int64(sourceTables))
            result["genericDevices"] = .int(Int64(genericDevices))
            result["problems"] = .array(
                problems.map { problem in
                    .object([
                        "file": .string(place(problem.file)),
                        "line": .int(Int64(problem.location.line)),
                        "column": .int(Int64(problem.location.column)),
                        "path": .string(problem.path.description),
                        "message": .string(problem.message),
                    ])
                })
            print(JSONValue.object(result).serialized(.pretty), terminator: "")
        } else if problems.isEmpty {
            let counts = [
                "\(catalog?.traits.count ?? 0) traits", "\(catalog?.deviceTypes.count ?? 0) device types",
                "\(sourceTables) source table\(sourceTables == 1 ? "" : "s")",
                "\(genericDevices) generic device\(genericDevices == 1 ? "" : "s")",
            ]
            print("\(name): valid (\(counts.joined(separator: ", ")))")
        } else {
            for problem in problems { print(place("\(problem)")) }
            print("\(problems.count) problem\(problems.count == 1 ? "" : "s") in \(name)")
        }
        if !problems.isEmpty { throw ExitCode.failure }
    }
}
