import Foundation
import PackagePlugin

/// Makes the shipped mappings and the build's commit part of the binary: before every build,
/// `scripts/embed-mappings.sh` writes `EmbeddedMappingsData.swift` (each file of `mappings/`, and
/// `git describe`) when what it would write changed. So a copied `traitbridge` needs no folder,
/// and its catalog can never be older than the `mappings/` it was built from.
@main
struct EmbedMappings: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "Embedding mappings/ and the commit",
                executable: URL(filePath: "/bin/sh"),
                arguments: [
                    root.appending(path: "scripts/embed-mappings.sh").path(), root.path(), output.path(),
                ],
                outputFilesDirectory: output)
        ]
    }
}
