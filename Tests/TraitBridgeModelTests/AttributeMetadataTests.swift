import Testing
import TraitBridgeModel

@Suite("Attribute metadata validation")
struct AttributeMetadataTests {
    @Test(
        "integer formats accept their edges and refuse one past them",
        arguments: [
            (AttributeFormat.int8, -128.0, 127.0), (.int16, -32768, 32767), (.int32, -2_147_483_648, 2_147_483_647),
            (.uint8, 0, 255), (.uint16, 0, 65535), (.uint32, 0, 4_294_967_295),
        ]
    )
    func formatEdges(format: AttributeFormat, low: Double, high: Double) throws {
        let metadata = AttributeMetadata(format: format)
        try metadata.validate(.int(Int64(low)))
        try metadata.validate(.int(Int64(high)))
        #expect(throws: AttributeValidationError.outOfFormatRange(value: low - 1, format: format)) {
            try metadata.validate(.int(Int64(low) - 1))
        }
        #expect(throws: AttributeValidationError.outOfFormatRange(value: high + 1, format: format)) {
            try metadata.validate(.int(Int64(high) + 1))
        }
    }

    @Test("minimum and maximum are inclusive; one step past each is refused and says what is allowed")
    func bounds() throws {
        let level = AttributeMetadata(format: .uint8, unit: .level, minimum: 1, maximum: 254, isWritable: true)
        try level.validateWrite(.int(1))
        try level.validateWrite(.int(254))
        #expect(throws: AttributeValidationError.belowMinimum(value: 0, minimum: 1, allowed: "1…254 level 1..254")) {
            try level.validateWrite(.int(0))
        }
        #expect(throws: AttributeValidationError.aboveMaximum(value: 255, maximum: 254, allowed: "1…254 level 1..254")) {
            try level.validateWrite(.int(255))
        }
        do {
            try level.validateWrite(.int(255))
        } catch {
            #expect(error.description == "255 is above the maximum 254; allowed 1…254 level 1..254")
            #expect(error.code == "valueOutOfRange")
        }
    }

    @Test("float bounds: the edge passes, the next representable value past it fails")
    func floatEdges() throws {
        let setpoint = AttributeMetadata(format: .float, unit: .celsius, minimum: 7, maximum: 30)
        try setpoint.validate(.double(7))
        try setpoint.validate(.double(30))
        try setpoint.validate(.int(20))
        #expect(throws: AttributeValidationError.self) { try setpoint.validate(.double(Double(7).nextDown)) }
        #expect(throws: AttributeValidationError.self) { try setpoint.validate(.double(Double(30).nextUp)) }
        #expect(throws: AttributeValidationError.notFinite) { try setpoint.validate(.double(.nan)) }
    }

    @Test("step counts from the minimum")
    func step() throws {
        let threshold = AttributeMetadata(format: .uint8, minimum: 10, maximum: 50, step: 5)
        try threshold.validate(.int(10))
        try threshold.validate(.int(15))
        try threshold.validate(.int(50))
        #expect(throws: AttributeValidationError.offStep(value: 12, step: 5, base: 10)) { try threshold.validate(.int(12)) }
        let half = AttributeMetadata(format: .float, minimum: 16, maximum: 30, step: 0.5)
        try half.validate(.double(21.5))
        #expect(throws: AttributeValidationError.self) { try half.validate(.double(21.3)) }
    }

    @Test("valid values: only listed values pass, and the error lists them with labels")
    func validValues() throws {
        let rotation = AttributeMetadata(format: .uint16, validValues: [ValidValue(.int(0)), ValidValue(.int(180))], isWritable: true)
        try rotation.validateWrite(.int(180))
        #expect(throws: AttributeValidationError.self) { try rotation.validateWrite(.int(90)) }
        let mode = AttributeMetadata(format: .enumeration, validValues: [ValidValue(.int(0), label: "Off"), ValidValue(.int(2), label: "Auto")])
        do {
            try mode.validate(.int(1))
            Issue.record("1 is not a valid value")
        } catch {
            #expect(error.description == "1 is not one of the valid values: 0 (Off), 2 (Auto)")
        }
        let modes = AttributeMetadata(format: .string, validValues: [ValidValue(.string("heat")), ValidValue(.string("cool"))])
        try modes.validate(.string("heat"))
        #expect(throws: AttributeValidationError.self) { try modes.validate(.string("dry")) }
    }

    @Test("text length is counted in UTF-8 bytes at both ends")
    func lengths() throws {
        let label = AttributeMetadata(format: .string, minLength: 2, maxLength: 4)
        try label.validate(.string("ab"))
        try label.validate(.string("abcd"))
        try label.validate(.string("ü!"))  // 3 bytes
        #expect(throws: AttributeValidationError.tooShort(length: 1, minLength: 2)) { try label.validate(.string("a")) }
        #expect(throws: AttributeValidationError.tooLong(length: 5, maxLength: 4)) { try label.validate(.string("abcde")) }
        #expect(throws: AttributeValidationError.tooLong(length: 6, maxLength: 4)) { try label.validate(.string("üüü")) }
    }

    @Test("kinds: a string is not a number, a fraction is not an integer, null needs nullable")
    func kinds() throws {
        let integer = AttributeMetadata(format: .int16)
        #expect(throws: AttributeValidationError.wrongKind(expected: .int16, got: "string")) { try integer.validate(.string("21")) }
        #expect(throws: AttributeValidationError.notAnInteger(value: 21.5, format: .int16)) { try integer.validate(.double(21.5)) }
        try integer.validate(.double(21))
        #expect(throws: AttributeValidationError.nullNotAllowed) { try integer.validate(.null) }
        try AttributeMetadata(format: .int16, isNullable: true).validate(.null)
        #expect(throws: AttributeValidationError.wrongKind(expected: .bool, got: "integer")) { try AttributeMetadata(format: .bool).validate(.int(1)) }
        try AttributeMetadata(format: .structure).validate(.structure(["x1": .int(0)]))
        try AttributeMetadata(format: .list).validate(.list([]))
        #expect(throws: AttributeValidationError.self) { try AttributeMetadata(format: .list).validate(.structure([:])) }
    }

    @Test("read-only attributes accept reports but refuse writes")
    func writability() throws {
        let measured = AttributeMetadata(format: .int16, unit: .celsius100ths, minimum: -27315, maximum: 32767)
        try measured.validate(.int(2150))
        #expect(throws: AttributeValidationError.notWritable) { try measured.validateWrite(.int(2150)) }
        #expect(AttributeValidationError.notWritable.code == "notSupported")
    }

    @Test("inconsistent metadata is described precisely")
    func consistency() {
        #expect(AttributeMetadata(format: .uint8, minimum: 10, maximum: 5).consistencyProblems == ["minimum 10 is greater than maximum 5"])
        #expect(AttributeMetadata(format: .uint8, maximum: 300).consistencyProblems == ["maximum 300 does not fit format uint8 (0…255)"])
        #expect(AttributeMetadata(format: .uint8, minimum: 1, maximum: 254, defaultValue: .int(0)).consistencyProblems
            == ["default 0 is not accepted: 0 is below the minimum 1; allowed 1…254"])
        #expect(AttributeMetadata(format: .string, minimum: 1).consistencyProblems == ["minimum, maximum and step apply to numbers, not to format string"])
        #expect(AttributeMetadata(format: .float, step: 0).consistencyProblems == ["step 0 must be greater than 0"])
        #expect(AttributeMetadata(format: .string, minLength: 5, maxLength: 2).consistencyProblems == ["minLength 5 is greater than maxLength 2"])
        #expect(AttributeMetadata(format: .enumeration, validValues: []).consistencyProblems == ["validValues is empty: no value could ever be accepted"])
        #expect(AttributeMetadata(format: .uint8, minimum: 0, maximum: 254, defaultValue: .int(254)).consistencyProblems.isEmpty)
    }
}
