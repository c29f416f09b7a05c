public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// State and availability messages in, command messages out, and the device its entities make.
extension HADiscoverySource {
    /// Reads one channel from a message (`document`: the payload parsed once per message when
    /// some channel of the topic reads JSON). A missing member is no news (a shared state topic
    /// carries other entities' values too); a value that is not one of the words is a problem.
    public func read(
        _ channel: HAChannel, payload: [UInt8], document: JSON?, into updates: inout [AttributeUpdate],
        problems: inout [SourceProblem]
    ) {
        if case .jsonLight(let light) = channel.reading {
            guard let document, document.kind == .object else {
                problems.append(SourceProblem(location: "$", message: "a json-schema light state is a JSON object"))
                return
            }
            readJSONLight(light, document, into: &updates, problems: &problems)
            return
        }
        if channel.template.readsJSON && document == nil {
            problems.append(
                SourceProblem(location: "$", message: "not JSON, but the entity reads it with a value_json template"))
            return
        }
        guard let rendered = channel.template.render(payload, document: document) else { return }
        let word = rendered.haWord
        if word.isEmpty || word == "None" || word == "unknown" || word == "unavailable" { return }
        if case .color(let format) = channel.reading {
            readColor(format, word, channel: channel, into: &updates, problems: &problems)
            return
        }
        let value: AttributeValue
        switch channel.reading {
        case .words(let words, let ignored):
            if ignored.contains(word) { return }
            guard let mapped = words[word] else {
                problems.append(
                    SourceProblem(
                        location: channel.attribute,
                        message:
                            "'\(word)' is not one of \(words.keys.sorted().map { "'\($0)'" }.joined(separator: ", "))"))
                return
            }
            value = mapped
        case .number:
            guard let number = rendered.numericValue ?? Double(word), number.isFinite else {
                problems.append(
                    SourceProblem(location: channel.attribute, message: "expected a number, found '\(word)'"))
                return
            }
            value = .double(number)
        case .text:
            value = .string(word)
        case .jsonLight, .color:
            return
        }
        guard let model = channel.pipeline.forward(value, fittingTo: channel.metadata) else {
            problems.append(
                SourceProblem(
                    location: channel.attribute,
                    message: "cannot convert '\(word)' to \(channel.address.traitID).\(channel.attribute)"))
            return
        }
        updates.append(AttributeUpdate(address: channel.address, attribute: channel.attribute, value: model))
    }

    /// `h,s` (degrees, percent), `x,y` or `r,g,b` (0…255) into the model's two colour attributes.
    private func readColor(
        _ format: HAColorFormat, _ word: String, channel: HAChannel, into updates: inout [AttributeUpdate],
        problems: inout [SourceProblem]
    ) {
        let numbers = word.split(separator: ",", omittingEmptySubsequences: false).compactMap {
            Double($0.filter { $0 != " " }).flatMap { $0.isFinite ? $0 : nil }
        }
        let expected = format == .rgb ? 3 : 2
        guard numbers.count == expected, word.split(separator: ",", omittingEmptySubsequences: false).count == expected
        else {
            problems.append(
                SourceProblem(
                    location: channel.attribute,
                    message:
                        "expected \(format == .hs ? "hue,saturation" : format == .xy ? "x,y" : "red,green,blue"), found '\(word)'"
                ))
            return
        }
        var model: (Double, Double)
        switch format {
        case .hs: model = (numbers[0] / 360 * 254, numbers[1] / 100 * 254)
        case .xy: model = (numbers[0] * 65536, numbers[1] * 65536)
        case .rgb:
            guard let hs = ColorSpace.hueSaturation(red: numbers[0], green: numbers[1], blue: numbers[2]),
                let xy = ColorSpace.xy(hs)
            else {
                problems.append(SourceProblem(location: channel.attribute, message: "'\(word)' is not a colour"))
                return
            }
            model = (xy.x * 65536, xy.y * 65536)
        }
        let (first, second) = format.attributes
        for (attribute, value) in [(first, model.0), (second, model.1)] {
            guard let metadata = try? catalog.attributeMetadata(channel.address.traitID, attribute),
                let fitted = ValuePipeline.fit(.double(value), to: metadata)
            else {
                problems.append(SourceProblem(location: attribute, message: "'\(word)' is out of range"))
                return
            }
            updates.append(AttributeUpdate(address: channel.address, attribute: attribute, value: fitted))
        }
    }

    private func readJSONLight(
        _ light: HAJSONLight, _ state: JSON, into updates: inout [AttributeUpdate], problems: inout [SourceProblem]
    ) {
        let key = light.deviceTypeKey
        func add(_ trait: String, _ attribute: String, _ value: AttributeValue) {
            guard let metadata = try? catalog.attributeMetadata(.matter(trait), attribute) else { return }
            guard let fitted = ValuePipeline.fit(value, to: metadata) else {
                problems.append(SourceProblem(location: attribute, message: "\(value) is not a finite number: ignored"))
                return
            }
            updates.append(
                AttributeUpdate(
                    address: TraitAddress(deviceTypeKey: key, traitID: .matter(trait)), attribute: attribute,
                    value: fitted))
        }
        if let text = state["state"]?.string {
            switch text {
            case "ON": add("OnOff", "onOff", .bool(true))
            case "OFF": add("OnOff", "onOff", .bool(false))
            default: problems.append(SourceProblem(location: "state", message: "expected ON or OFF, found '\(text)'"))
            }
        }
        if let scale = light.brightnessScale, let brightness = state["brightness"]?.double {
            add("LevelControl", "currentLevel", .double(brightness * 254 / scale))
        }
        if light.hasColorTemperature, let temperature = state["color_temp"]?.double, temperature > 0 {
            add(
                "ColorControl", "colorTemperatureMireds",
                .double(light.colorTemperatureInKelvin ? 1_000_000 / temperature : temperature))
        }
        if let mode = state["color_mode"]?.string, let colorMode = Self.colorModes[mode] {
            add("ColorControl", "colorMode", .int(colorMode))
        }
        if let color = state["color"], color.kind == .object {
            if light.hasXYModel, let x = color["x"]?.double, let y = color["y"]?.double {
                add("ColorControl", "currentX", .double(x * 65536))
                add("ColorControl", "currentY", .double(y * 65536))
            } else if light.hasRGB, let red = color["r"]?.double, let green = color["g"]?.double,
                let blue = color["b"]?.double
            {
                guard let hs = ColorSpace.hueSaturation(red: red, green: green, blue: blue), let xy = ColorSpace.xy(hs)
                else {
                    problems.append(SourceProblem(location: "color", message: "r, g, b must be numbers 0…255"))
                    return
                }
                add("ColorControl", "currentX", .double(xy.x * 65536))
                add("ColorControl", "currentY", .double(xy.y * 65536))
            }
            if light.hasHueSaturation, let hue = color["h"]?.double, let saturation = color["s"]?.double {
                add("ColorControl", "currentHue", .double(hue / 360 * 254))
                add("ColorControl", "currentSaturation", .double(saturation / 100 * 254))
            }
        }
    }

    /// What an availability topic said: available, not available, or `nil` for another word.
    public func availability(_ entry: HAAvailability, payload: [UInt8], document: JSON?) -> Bool? {
        guard let word = entry.template.render(payload, document: document)?.haWord else { return nil }
        if word == entry.available { return true }
        if word == entry.notAvailable { return false }
        return nil
    }

    /// The command-topic messages for unified writes on one entity; a write the entity has no
    /// command for, or a value it cannot express, is refused with the reason.
    public func commands(for writes: [AttributeUpdate], on entity: HADiscoveryEntity) throws(SourceProblem) -> [(
        topic: String, payload: String
    )] {
        var messages: [(topic: String, payload: String)] = []
        var lightCommand: (topic: String, light: HAJSONLight, object: JSONObject)?
        var colorCommands: [String: (format: HAColorFormat, values: [String: Double])] = [:]
        for write in writes {
            guard
                let command = entity.commands.first(where: {
                    $0.address == write.address && $0.attribute == write.attribute
                })
            else {
                throw SourceProblem(
                    location: "\(write.address).\(write.attribute)",
                    message: "the Home Assistant entity \(entity.key) has no command topic for this attribute")
            }
            switch command.encoding {
            case .words(let payloads):
                guard let payload = payloads.first(where: { Self.same($0.model, write.value) })?.payload else {
                    throw SourceProblem(
                        location: "\(write.address).\(write.attribute)",
                        message:
                            "\(write.value) cannot be sent; the entity accepts \(payloads.map(\.model.description).joined(separator: ", "))"
                    )
                }
                messages.append((command.topic, payload))
            case .number(let template, let integral, let range):
                guard var number = command.pipeline.inverse(write.value, integral: integral)?.numericValue else {
                    throw SourceProblem(
                        location: "\(write.address).\(write.attribute)",
                        message: "\(write.value) has no value on this entity's scale")
                }
                if let range { number = min(range.upperBound, max(range.lowerBound, number)) }
                guard let text = integral ? FiniteNumber.int64(rounding: number).map(String.init) : Self.decimal(number)
                else {
                    throw SourceProblem(
                        location: "\(write.address).\(write.attribute)",
                        message: "\(write.value) has no value on this entity's scale")
                }
                messages.append((command.topic, template.render(text)))
            case .word(let template, let allowed):
                guard case .string(let word)? = command.pipeline.inverse(write.value, integral: false),
                    allowed.contains(word)
                else {
                    throw SourceProblem(
                        location: "\(write.address).\(write.attribute)",
                        message:
                            "\(write.value) is not a mode of this entity; it has \(allowed.joined(separator: ", "))")
                }
                messages.append((command.topic, template.render(word)))
            case .jsonLight(let light):
                var object = lightCommand?.object ?? JSONObject()
                try Self.addLightMember(write, light: light, to: &object)
                lightCommand = (command.topic, light, object)
            case .color(let format):
                guard let number = write.value.numericValue, number.isFinite else {
                    throw SourceProblem(location: write.attribute, message: "\(write.value) is not a finite number")
                }
                colorCommands[command.topic, default: (format, [:])].values[write.attribute] = number
            }
        }
        for (topic, color) in colorCommands.sorted(by: { $0.key < $1.key }) {
            messages.append((topic, try Self.colorPayload(color.format, color.values, entity: entity)))
        }
        if var lightCommand {
            if lightCommand.light.hasRGB && !lightCommand.light.hasXY {
                try Self.xyToRGB(&lightCommand.object, entity: entity)
            }
            messages.append((lightCommand.topic, JSONValue.object(lightCommand.object).serialized()))
        }
        return messages
    }

    /// A default-schema colour command: `h,s`, `x,y` or `r,g,b`, from both model attributes.
    private static func colorPayload(
        _ format: HAColorFormat, _ values: [String: Double], entity: HADiscoveryEntity
    ) throws(SourceProblem) -> String {
        let (first, second) = format.attributes
        guard let a = values[first], let b = values[second] else {
            throw SourceProblem(
                location: first, message: "\(entity.key) takes its colour whole: write \(first) and \(second) together")
        }
        func fixed(_ value: Double, _ places: Double) -> String {
            let scale = places == 1 ? 10.0 : 10000.0
            return FiniteNumber.attributeValue((value * scale).rounded() / scale)?.description ?? "0"
        }
        switch format {
        case .hs: return "\(fixed(a / 254 * 360, 1)),\(fixed(b / 254 * 100, 1))"
        case .xy: return "\(fixed(a / 65536, 4)),\(fixed(b / 65536, 4))"
        case .rgb:
            guard let hs = ColorSpace.hueSaturation(x: a / 65536, y: b / 65536), let rgb = ColorSpace.rgb(hs) else {
                throw SourceProblem(location: first, message: "x \(a / 65536), y \(b / 65536) is not a colour")
            }
            let channel = { (v: Double) in String(FiniteNumber.int64(rounding: v * 255) ?? 0) }
            return "\(channel(rgb.red)),\(channel(rgb.green)),\(channel(rgb.blue))"
        }
    }

    /// Home Assistant's `color_mode` of a light state → Matter's ColorMode (0 hue/saturation,
    /// 1 xy, 2 colour temperature); rgb modes are held as xy.
    static let colorModes: [String: Int64] = [
        "hs": 0, "xy": 1, "rgb": 1, "rgbw": 1, "rgbww": 1, "color_temp": 2,
    ]

    /// An rgb light is sent `color: {r, g, b}`: the xy written (with the current other half when
    /// only one was) as the brightest sRGB colour of that chromaticity.
    private static func xyToRGB(_ object: inout JSONObject, entity: HADiscoveryEntity) throws(SourceProblem) {
        guard case .object(let color)? = object["color"], let x = color["x"]?.numberValue,
            let y = color["y"]?.numberValue
        else {
            if object["color"] != nil {
                throw SourceProblem(
                    location: "color", message: "an rgb light needs both currentX and currentY in one command")
            }
            return
        }
        guard let hs = ColorSpace.hueSaturation(x: x, y: y), let rgb = ColorSpace.rgb(hs) else {
            throw SourceProblem(location: "color", message: "x \(x), y \(y) is not a colour \(entity.key) can show")
        }
        func channel(_ value: Double) -> JSONValue { .int(FiniteNumber.int64(rounding: value * 255) ?? 0) }
        object["color"] = ["r": channel(rgb.red), "g": channel(rgb.green), "b": channel(rgb.blue)]
    }

    private static func addLightMember(_ write: AttributeUpdate, light: HAJSONLight, to object: inout JSONObject)
        throws(SourceProblem)
    {
        let number = write.value.numericValue ?? 0
        guard number.isFinite else {
            throw SourceProblem(location: write.attribute, message: "\(write.value) is not a finite number")
        }
        func integer(_ value: Double) throws(SourceProblem) -> JSONValue {
            guard let integer = FiniteNumber.int64(rounding: value) else {
                throw SourceProblem(location: write.attribute, message: "\(write.value) is out of the light's range")
            }
            return .int(integer)
        }
        switch write.attribute {
        case "onOff":
            guard case .bool(let on) = write.value else {
                throw SourceProblem(location: "onOff", message: "expected true or false")
            }
            object["state"] = .string(on ? "ON" : "OFF")
        case "currentLevel":
            object["brightness"] = try integer(number * (light.brightnessScale ?? 254) / 254)
            if object["state"] == nil { object["state"] = .string("ON") }
        case "colorTemperatureMireds":
            guard number > 0 else {
                throw SourceProblem(
                    location: "colorTemperatureMireds", message: "expected a colour temperature above 0")
            }
            object["color_temp"] = try integer(light.colorTemperatureInKelvin ? 1_000_000 / number : number)
        case "currentX", "currentY", "currentHue", "currentSaturation":
            var color: JSONObject = if case .object(let existing)? = object["color"] { existing } else { JSONObject() }
            switch write.attribute {
            case "currentX": color["x"] = .double((number / 65536 * 10000).rounded() / 10000)
            case "currentY": color["y"] = .double((number / 65536 * 10000).rounded() / 10000)
            case "currentHue": color["h"] = .double((number / 254 * 360 * 10).rounded() / 10)
            default: color["s"] = .double((number / 254 * 100 * 10).rounded() / 10)
            }
            object["color"] = .object(color)
        default:
            throw SourceProblem(
                location: write.attribute, message: "a json-schema light has no command for this attribute")
        }
    }

    /// The TraitBridge device of a HA device's entities: one device type per entity, the primary
    /// chosen by the table's order (then by key, so arrival order never matters).
    public func device(id: DeviceID, entities: [HADiscoveryEntity]) throws(ModelError) -> Device {
        let sorted = entities.sorted { $0.key < $1.key }
        guard let first = sorted.first else { throw .unknownDeviceTypeKey(key: "", known: []) }
        var types: [DeviceTypeInstance] = []
        var identity = DeviceIdentity()
        for entity in sorted {
            var type = entity.deviceType
            if types.contains(where: { $0.key == type.key }) { type.key = entity.key.replacing("/", with: "-") }
            types.append(type)
            if identity.serialNumber == nil { identity.serialNumber = entity.deviceRef.identity.serialNumber }
            for other in entity.deviceRef.identity.otherDeviceIDs where !identity.otherDeviceIDs.contains(other) {
                identity.otherDeviceIDs.append(other)
            }
        }
        if let primary = types.indices.min(by: { table.rank(of: types[$0].typeID) < table.rank(of: types[$1].typeID) })
        {
            types[primary].isPrimaryType = true
        }
        // Entities of one device may each carry only part of its description: take what any gives.
        let refs = sorted.map(\.deviceRef)
        let name = refs.compactMap(\.name).first ?? sorted.compactMap(\.name).first ?? first.deviceRef.nativeID
        let info = DeviceInfo(
            manufacturer: refs.compactMap(\.info.manufacturer).first, model: refs.compactMap(\.info.model).first,
            hardwareVersion: refs.compactMap(\.info.hardwareVersion).first,
            softwareVersion: refs.compactMap(\.info.softwareVersion).first)
        return try Device(
            id: id, name: name, identity: identity, info: info,
            sources: sorted.compactMap(\.source), deviceTypes: types)
    }

    static func same(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if let x = a.numericValue, let y = b.numericValue { return x == y }
        return a == b
    }

    /// Two decimals at most, `21` rather than `21.0`; `nil` for NaN and ±infinity.
    static func decimal(_ number: Double) -> String? {
        let rounded = (number * 100).rounded() / 100
        guard rounded.isFinite else { return nil }
        return FiniteNumber.attributeValue(rounded)?.description
    }
}
