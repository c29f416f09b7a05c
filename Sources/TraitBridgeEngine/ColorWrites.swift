import TraitBridgeModel
import TraitBridgeSources

/// Colour writes in the form each source takes (a pure function of the writes, the device and
/// what its sources write).
enum ColorWrites {
    /// Colour writes in the form the source takes: hue and saturation become xy for a light whose
    /// source writes only xy (a Home Assistant `xy` light, a zigbee2mqtt bulb exposing `color_xy`
    /// alone), and xy becomes hue and saturation for one that writes only those. Sources that say
    /// nothing of what they write are sent the writes as they are.
    /// `writable`: the attributes the source of a trait writes (empty: it does not say).
    static func adapt(
        _ writes: [AttributeUpdate], on device: Device?, writable: (Device, TraitAddress) -> Set<String>
    ) -> [AttributeUpdate] {
        guard let device, writes.contains(where: { $0.address.traitID == .matter("ColorControl") }) else {
            return writes
        }
        var result: [AttributeUpdate] = []
        var byAddress: [TraitAddress: [String: Double]] = [:]
        var originals: [TraitAddress: [AttributeUpdate]] = [:]
        for write in writes {
            if write.address.traitID == .matter("ColorControl"), colorPairs.contains(write.attribute),
                let number = write.value.numericValue
            {
                byAddress[write.address, default: [:]][write.attribute] = number
                originals[write.address, default: []].append(write)
            } else {
                result.append(write)
            }
        }
        for (address, values) in byAddress.sorted(by: { $0.key.description < $1.key.description }) {
            let writable = writable(device, address)
            let current = device.trait(at: address)?.attributes ?? [:]
            func value(_ name: String) -> Double? { values[name] ?? current[name]?.numericValue }
            var converted: [String: Double]?
            if values["currentHue"] != nil || values["currentSaturation"] != nil, !writable.isEmpty,
                !writable.contains("currentHue"), writable.contains("currentX"),
                let hue = value("currentHue"), let saturation = value("currentSaturation"),
                let xy = ColorSpace.xy(.init(hue: hue / 254 * 360, saturation: saturation / 254))
            {
                converted = ["currentX": (xy.x * 65536).rounded(), "currentY": (xy.y * 65536).rounded()]
            } else if values["currentX"] != nil || values["currentY"] != nil, !writable.isEmpty,
                !writable.contains("currentX"), writable.contains("currentHue"),
                let x = value("currentX"), let y = value("currentY"),
                let color = ColorSpace.hueSaturation(x: x / 65536, y: y / 65536)
            {
                converted = [
                    "currentHue": min(254, (color.hue / 360 * 254).rounded()),
                    "currentSaturation": min(254, (color.saturation * 254).rounded()),
                ]
            }
            guard let converted else {
                result += originals[address] ?? []
                continue
            }
            for (attribute, number) in converted.sorted(by: { $0.key < $1.key }) {
                guard let whole = FiniteNumber.int64(rounding: number) else { continue }
                result.append(AttributeUpdate(address: address, attribute: attribute, value: .int(whole)))
            }
        }
        return result
    }

    static let colorPairs: Set<String> = ["currentHue", "currentSaturation", "currentX", "currentY"]
}
