import Testing
import TraitBridgeModel

/// Colour conversions against the sRGB primaries' published chromaticities (IEC 61966-2-1).
@Suite("colour spaces")
struct ColorSpaceTests {
    func close(_ a: Double, _ b: Double, within: Double = 0.002) -> Bool { abs(a - b) <= within }

    @Test("the sRGB primaries and white land on their published xy")
    func primaries() throws {
        for (hue, x, y) in [(0.0, 0.64, 0.33), (120.0, 0.30, 0.60), (240.0, 0.15, 0.06)] {
            let xy = try #require(ColorSpace.xy(.init(hue: hue, saturation: 1)))
            #expect(close(xy.x, x) && close(xy.y, y), "hue \(hue): \(xy)")
        }
        let white = try #require(ColorSpace.xy(.init(hue: 0, saturation: 0)))
        #expect(close(white.x, 0.3127) && close(white.y, 0.3290), "\(white)")
    }

    @Test("hue and saturation survive xy and back; rgb and back")
    func roundTrips() throws {
        for hue in stride(from: 0.0, to: 360, by: 30) {
            for saturation in [0.25, 0.6, 1.0] {
                let xy = try #require(ColorSpace.xy(.init(hue: hue, saturation: saturation)))
                let back = try #require(ColorSpace.hueSaturation(x: xy.x, y: xy.y))
                let hueError = min(abs(back.hue - hue), 360 - abs(back.hue - hue))
                #expect(
                    hueError < 0.5 && close(back.saturation, saturation, within: 0.005),
                    "\(hue) \(saturation) → \(back)")
                let rgb = try #require(ColorSpace.rgb(.init(hue: hue, saturation: saturation)))
                let again = try #require(ColorSpace.hueSaturation(red: rgb.red, green: rgb.green, blue: rgb.blue))
                #expect(
                    min(abs(again.hue - hue), 360 - abs(again.hue - hue)) < 0.01 && close(again.saturation, saturation))
            }
        }
    }

    @Test("what is not a colour gives nil, never a trap")
    func hostile() {
        #expect(ColorSpace.hueSaturation(x: .nan, y: 0.3) == nil)
        #expect(ColorSpace.hueSaturation(x: 0.3, y: 0) == nil)
        #expect(ColorSpace.hueSaturation(x: 0.9, y: 0.9) == nil, "x + y > 1 is no chromaticity")
        #expect(ColorSpace.hueSaturation(x: -0.1, y: 0.3) == nil)
        #expect(ColorSpace.hueSaturation(red: .infinity, green: 0, blue: 0) == nil)
        #expect(ColorSpace.hueSaturation(red: -1, green: 0, blue: 0) == nil)
        #expect(ColorSpace.xy(.init(hue: .nan, saturation: 1)) == nil)
        #expect(ColorSpace.rgb(.init(hue: 1e300, saturation: 1)) != nil, "a huge hue wraps")
    }
}
