import TraitBridgeJSON

/// The CLI's readers of outside bytes, reachable from outside the module so that the fuzzer
/// (`Sources/TraitBridgeFuzzing`) drives the same code the commands run: a config file, and the
/// retained messages `status`, `devices`, `show` and `watch` read from a shared broker.
public enum CLIInputs {
    /// Reads a serve config file's contents: the configuration's summary, or the error's text.
    public static func readServeConfiguration(_ bytes: [UInt8], path: String = "fuzz.json") -> String {
        do throws(ConfigurationError) {
            let configuration = try ServeConfiguration.parse(bytes, path: path)
            return "\(configuration.prefix) \(configuration.limits)"
        } catch {
            return error.description
        }
    }

    /// Everything the read commands print from these retained messages (topic → payload under
    /// prefix `traitbridge`): the status table and JSON, each device's `show`, and `watch` lines
    /// for every state compared with every other.
    public static func renderRetained(_ messages: [String: [UInt8]]) -> String {
        let snapshot = BridgeSnapshot(retained: messages, prefix: "traitbridge")
        let rows = StatusRow.rows(snapshot)
        var out = StatusRow.table(rows, bridge: snapshot.bridgeState, prefix: "traitbridge")
        out += StatusRow.json(rows, bridge: snapshot.bridgeState).serialized()
        let ids = snapshot.states.keys.sorted()
        for id in ids {
            guard let state = snapshot.states[id] else { continue }
            out += ShowCommand.render(
                id: id, state: state, description: snapshot.descriptions[id], bridge: snapshot.bridgeState)
            out += DevicesCommand.Entry(id: id, state: state, description: snapshot.descriptions[id]).json.serialized()
            for other in ids.prefix(4) {
                if let change = StateChange.between(id: id, old: snapshot.states[other], new: state) {
                    out += "\(change)"
                }
            }
            out += StateChange.between(id: id, old: nil, new: state).map { "\($0)" } ?? ""
            out += StateChange.between(id: id, old: state, new: nil).map { "\($0)" } ?? ""
        }
        return out
    }
}
