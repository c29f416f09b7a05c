import TraitBridgeCLI

await TraitBridgeCommand.run()
