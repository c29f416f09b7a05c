/// The data format of an attribute or command field (HMCharacteristicMetadata's `format`, with
/// Matter's integer widths so that range checks follow the wire type).
public enum AttributeFormat: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case bool
    case int8, int16, int32, int64
    case uint8, uint16, uint32, uint64
    case float
    case string
    /// An enumeration: an unsigned integer restricted to `validValues`.
    case enumeration = "enum"
    /// A bitmap: an unsigned integer whose bits have meanings.
    case bitmap
    case structure = "struct"
    case list

    public var description: String { rawValue }

    /// The representable range of an integer format; `nil` for non-integer formats.
    public var integerRange: ClosedRange<Double>? {
        switch self {
        case .int8: -128...127
        case .int16: -32768...32767
        case .int32: -2_147_483_648...2_147_483_647
        case .int64: -0x1p63...0x1p63  // Int64 bounds as Double
        case .uint8: 0...255
        case .uint16: 0...65535
        case .uint32: 0...4_294_967_295
        case .uint64: 0...0x1p64  // UInt64 bounds as Double
        case .enumeration: 0...65535
        case .bitmap: 0...4_294_967_295
        default: nil
        }
    }

    /// Whether values are numbers (integers or floating point).
    public var isNumeric: Bool { integerRange != nil || self == .float }
}

/// The unit an attribute's number is expressed in; spelled out so that no conversion is guessed.
///
/// Matter stores most quantities as scaled integers: temperatures in hundredths of a degree
/// Celsius, humidity and cover positions in hundredths of a percent, colour temperature in mireds,
/// light levels as 1…254 steps. Keeping that in the catalog (and in every source table) is what
/// prevents the °F-sent-as-°C and Kelvin-sent-as-mireds bugs other bridges have.
public enum AttributeUnit: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case celsius100ths = "0.01 °C"
    case celsius10ths = "0.1 °C"
    case celsius = "°C"
    case fahrenheit = "°F"
    case percent = "%"
    case percent100ths = "0.01 %"
    case halfPercent = "0.5 %"
    case mireds
    case kelvin = "K"
    /// A Level Control level: 1…254 for lights (0 and 255 have special meanings).
    case level = "level 1..254"
    /// Matter illuminance: 10000 × log10(lux) + 1.
    case luxLog = "10000*log10(lx)+1"
    case lux = "lx"
    case kilopascal10ths = "0.1 kPa"
    case hectopascal = "hPa"
    case seconds = "s"
    case tenthsOfSecond = "0.1 s"
    case milliseconds = "ms"
    case minutes = "min"
    case degrees = "°"
    case milliwatts = "mW"
    case watts = "W"
    case milliwattHours = "mWh"
    case kilowattHours = "kWh"
    case millivolts = "mV"
    case volts = "V"
    case milliamperes = "mA"
    case amperes = "A"
    case hertz = "Hz"
    case partsPerMillion = "ppm"
    case microgramsPerCubicMeter = "µg/m³"
    case rpm
    /// Seconds since the Matter epoch, 2000-01-01T00:00:00Z.
    case matterEpochSeconds = "s since 2000-01-01"
    case unixMilliseconds = "ms since 1970-01-01"
    case bytes = "B"

    public var description: String { rawValue }
}
