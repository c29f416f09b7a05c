public import FoundationEssentials

extension Device {
    /// Records a value a device reported. The value is checked against the catalog (kind, format,
    /// range) but not for writability; an invalid value changes nothing and throws.
    ///
    /// - Returns: whether the stored value changed (so callers publish only on change).
    @discardableResult
    public mutating func report(
        _ value: AttributeValue,
        attribute: String,
        at address: TraitAddress,
        catalog: Catalog,
        time: Date
    ) throws(ModelError) -> Bool {
        let metadata = try catalog.attributeMetadata(address.traitID, attribute)
        do {
            try metadata.validate(value)
        } catch {
            throw .invalidAttributeValue(address: address, attribute: attribute, error)
        }
        var changed = false
        try modifyTrait(at: address) { trait in
            if trait.attributes[attribute] != value {
                trait.attributes[attribute] = value
                changed = true
            }
            trait.lastUpdated = time
        }
        return changed
    }

    /// Checks that `value` may be written to `attribute` (exists, writable, in range) without
    /// changing anything: commands are validated here before they reach a source.
    public func validateWrite(
        _ value: AttributeValue,
        attribute: String,
        at address: TraitAddress,
        catalog: Catalog
    ) throws(ModelError) {
        guard trait(at: address) != nil else { throw .traitNotInDeviceType(address) }
        let metadata = try catalog.attributeMetadata(address.traitID, attribute)
        do {
            try metadata.validateWrite(value)
        } catch {
            throw .invalidAttributeValue(address: address, attribute: attribute, error)
        }
    }

    /// Sets the connectivity of every trait fed by `source` (every trait when `nil`), in place.
    ///
    /// - Returns: whether any trait's state, locality or reason changed.
    @discardableResult
    public mutating func setConnectivity(
        _ state: TraitConnectivityState,
        locality: TraitLocality,
        reason: ConnectivityReason,
        forTraitsOf source: SourceReference?,
        time: Date
    ) -> Bool {
        var changed = false
        for typeIndex in deviceTypes.indices {
            for traitIndex in deviceTypes[typeIndex].traits.indices {
                let current = deviceTypes[typeIndex].traits[traitIndex]
                if let source, current.source != source { continue }
                let connectivity = current.connectivity
                if connectivity.state == state && connectivity.locality == locality && connectivity.reason == reason && connectivity.since != nil {
                    continue
                }
                deviceTypes[typeIndex].traits[traitIndex].connectivity.update(state: state, locality: locality, reason: reason, at: time)
                changed = true
            }
        }
        return changed
    }

    /// Sets the connectivity of one trait, with its reason.
    ///
    /// - Returns: whether the trait's state or locality changed.
    @discardableResult
    public mutating func setConnectivity(
        _ state: TraitConnectivityState,
        locality: TraitLocality,
        reason: ConnectivityReason,
        at address: TraitAddress,
        time: Date
    ) throws(ModelError) -> Bool {
        var changed = false
        try modifyTrait(at: address) { trait in
            let before = trait.connectivity
            trait.connectivity.update(state: state, locality: locality, reason: reason, at: time)
            changed = before.state != state || before.locality != locality
        }
        return changed
    }
}
