import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// `traitbridge mappings …`: work with the data files in `mappings/`.
struct MappingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mappings",
        abstract: "Check the data files that define device types, traits and source tables.",
        subcommands: [MappingsValidateCommand.self]
    )
}
