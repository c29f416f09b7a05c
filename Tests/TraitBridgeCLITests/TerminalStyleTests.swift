import Foundation
import Testing
@testable import TraitBridgeCLI
import TraitBridgeJSON

/// Colour only for a person at a terminal: a pseudo-terminal gets it, a pipe does not, and
/// NO_COLOR (any non-empty value) or TERM=dumb turns it off.
@Suite("Terminal style")
struct TerminalStyleTests {
    @Test("a terminal is coloured unless NO_COLOR or TERM=dumb; a pipe never is")
    func colourRules() throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        try #require(openpty(&primary, &secondary, nil, nil, nil) == 0, "a pseudo-terminal")
        defer { close(primary); close(secondary) }
        #expect(TerminalStyle(descriptor: secondary, environment: ["TERM": "xterm"]).isColored)
        #expect(!TerminalStyle(descriptor: secondary, environment: ["TERM": "xterm", "NO_COLOR": "1"]).isColored)
        #expect(TerminalStyle(descriptor: secondary, environment: ["TERM": "xterm", "NO_COLOR": ""]).isColored, "an empty NO_COLOR does not count")
        #expect(!TerminalStyle(descriptor: secondary, environment: ["TERM": "dumb"]).isColored)
        let pipe = Pipe()
        #expect(!TerminalStyle(descriptor: pipe.fileHandleForWriting.fileDescriptor, environment: ["TERM": "xterm"]).isColored)
        let coloured = TerminalStyle(isColored: true, isTerminal: true)
        #expect(coloured.connectivity("offline") == "\u{1B}[31moffline\u{1B}[0m")
        #expect(TerminalStyle(isColored: false, isTerminal: false).connectivity("offline") == "offline")
    }

    @Test("the status table stays aligned when coloured: padding is measured before the colour")
    func alignedTable() throws {
        let rows = try [
            (#"{"name":"Lamp","connectivityState":"online","dataSourceLocality":"localPeer"}"#),
            (#"{"name":"Kitchen plug","connectivityState":"partiallyOnline","dataSourceLocality":"mixed"}"#),
            (#"{"name":"Sensor","connectivityState":"offline","dataSourceLocality":"localPeer"}"#),
        ].enumerated().map { index, text in StatusRow(id: "d\(index)", state: try JSONDocument.parse(Array(text.utf8)).root, description: nil) }
        let plain = StatusRow.table(rows, bridge: "online", prefix: "tb")
        let coloured = StatusRow.table(rows, bridge: "online", prefix: "tb", style: TerminalStyle(isColored: true, isTerminal: true))
        let stripped = coloured.replacing(/\u{1B}\[[0-9;]*m/, with: "")
        #expect(stripped == plain)
        #expect(coloured != plain)
    }
}
