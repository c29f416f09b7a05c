import Foundation

/// Where the fuzz targets find the repository (its mappings and the tests' fixtures) and
/// `../shared/corpus`. `TRAITBRIDGE_REPOSITORY` overrides the repository this file was built in.
public enum FuzzPaths {
    public static let repository: String = {
        if let given = ProcessInfo.processInfo.environment["TRAITBRIDGE_REPOSITORY"], !given.isEmpty { return given }
        // …/Sources/TraitBridgeFuzzing/FuzzPaths.swift → the repository.
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()
    /// `../shared/corpus` beside the repository, when present.
    public static var sharedCorpus: String? {
        let path = URL(fileURLWithPath: repository).deletingLastPathComponent().path + "/shared/corpus"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
    static var genericMappings: String { repository + "/Tests/TraitBridgeEngineTests/Fixtures/generic-mappings" }
    static var cloudFixtures: String { repository + "/Tests/TraitBridgeCloudTests/Fixtures" }
    static var frigateFixtures: String { repository + "/Tests/TraitBridgeSourcesTests/Fixtures/frigate" }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The files of a folder (recursively), sorted; none when it does not exist.
    static func files(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue
            {
                files.append(folder + "/" + name)
            }
        }
        return files.sorted()
    }
}
