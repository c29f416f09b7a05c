import TraitBridgeCLI

TraitBridgeCommand.run()
