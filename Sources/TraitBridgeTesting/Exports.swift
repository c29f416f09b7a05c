// The private broker is shared with `traitbridge demo`; tests keep importing it from here.
@_exported public import TraitBridgeLocalBroker
