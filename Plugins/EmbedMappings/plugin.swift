import Foundation
import PackagePlugin

/// Makes the shipped mappings, the HTTP API's document and the build's commit part of the binary:
/// `scripts/embed-mappings.sh` writes `EmbeddedMappingsData.swift` (each file of `mappings/`,
/// `api/openapi.json`, `VERSION` and `git describe`). It is a build command whose inputs are those
/// files, their folders (a file added or removed changes its folder) and git's HEAD and index, so
/// the build runs it whenever one of them changed — a prebuild command runs only when the build is
/// planned again, which a changed file alone does not cause. So a copied `traitbridge` needs no
/// folder, and its catalog can never be older than the `mappings/` it was built from.
@main
struct EmbedMappings: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated/EmbeddedMappingsData.swift")
        var inputs = [root.appending(path: "scripts/embed-mappings.sh"), root.appending(path: "VERSION")]
        for folder in ["mappings", "api"] {
            let base = root.appending(path: folder)
            inputs.append(base)
            let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isDirectoryKey])
            while let url = walker?.nextObject() as? URL { inputs.append(url) }
        }
        for file in [".git/HEAD", ".git/index"] {
            let url = root.appending(path: file)
            if FileManager.default.fileExists(atPath: url.path()) { inputs.append(url) }
        }
        return [
            .buildCommand(
                displayName: "Embedding mappings/, api/openapi.json and the commit",
                executable: URL(filePath: "/bin/sh"),
                arguments: [
                    root.appending(path: "scripts/embed-mappings.sh").path(), root.path(),
                    output.deletingLastPathComponent().path(),
                ],
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
