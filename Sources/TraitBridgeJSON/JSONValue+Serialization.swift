extension JSONValue {
    /// How ``serialized(_:)`` lays the text out.
    public enum Layout: Sendable {
        /// No spaces or newlines: for MQTT payloads.
        case compact
        /// Two-space indentation, `"key": value`, one member per line: for files and people.
        case pretty
    }

    /// The JSON text of this value as UTF-8 bytes. Non-finite doubles (which JSON cannot hold)
    /// are written as `null`.
    public func serializedBytes(_ layout: Layout = .compact) -> [UInt8] {
        var writer = JSONWriter(layout: layout)
        writer.write(self, depth: 0)
        if layout == .pretty { writer.output.append(UInt8(ascii: "\n")) }
        return writer.output
    }

    /// The JSON text of this value.
    public func serialized(_ layout: Layout = .compact) -> String {
        String(decoding: serializedBytes(layout), as: UTF8.self)
    }
}

/// Appends JSON text to a byte buffer; one allocation pattern for every output path.
struct JSONWriter {
    var output: [UInt8] = []
    let layout: JSONValue.Layout

    init(layout: JSONValue.Layout) {
        self.layout = layout
        output.reserveCapacity(256)
    }

    mutating func write(_ value: JSONValue, depth: Int) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .int(let integer): JSONEncoding.appendInteger(integer, to: &output)
        case .double(let number): writeDouble(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            if !elements.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                writeString(member.key)
                output.append(UInt8(ascii: ":"))
                if layout == .pretty { output.append(UInt8(ascii: " ")) }
                write(member.value, depth: depth + 1)
            }
            if !object.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(_ depth: Int) {
        guard layout == .pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func writeDouble(_ number: Double) {
        guard number.isFinite else { return append("null") }
        if number == number.rounded(), abs(number) < 1e15 {
            append(String(Int64(number)))  // 21.0 → 21: what every JSON consumer expects
        } else {
            append(number.description)
        }
    }

    private mutating func writeString(_ text: String) {
        JSONEncoding.appendString(text, to: &output)
    }
}
