import Testing
import TraitBridgeModel

@Suite("Connectivity and locality aggregation")
struct SourceConnectivityTests {
    /// Every combination of 0…`maximum` inputs drawn from `values`, in every order.
    static func combinations<T>(of values: [T], upTo maximum: Int) -> [[T]] {
        var result: [[T]] = [[]]
        var layer: [[T]] = [[]]
        for _ in 0..<maximum {
            layer = layer.flatMap { prefix in values.map { prefix + [$0] } }
            result += layer
        }
        return result
    }

    /// The ARCHITECTURE §3 connectivity table, read row by row (an oracle written apart from the code).
    static func expectedState(_ inputs: [ConnectivityState]) -> ConnectivityState {
        // A partiallyOnline input counts as one online and one offline input.
        let expanded = inputs.flatMap { $0 == .partiallyOnline ? [ConnectivityState.online, .offline] : [$0] }
        if expanded.isEmpty || expanded.allSatisfy({ $0 == .unknown }) { return .unknown }
        if expanded.allSatisfy({ $0 == .online }) { return .online }
        if expanded.contains(.online) { return .partiallyOnline }
        return .offline  // none online, and not all unknown: at least one offline
    }

    /// The ARCHITECTURE §3 locality table.
    static func expectedLocality(_ inputs: [DataSourceLocality]) -> DataSourceLocality {
        let known = Set(inputs.filter { $0 != .unspecified })
        if known.isEmpty { return .unspecified }
        if known.count == 1 { return known.first! }
        return .mixed
    }

    @Test("connectivity: every combination of up to 4 inputs over all values follows the table")
    func connectivityTable() {
        let all = Self.combinations(of: ConnectivityState.allCases, upTo: 4)
        #expect(all.count == 1 + 4 + 16 + 64 + 256)
        for inputs in all {
            let parts = inputs.map { SourceConnectivity(connectivityState: $0, dataSourceLocality: .unspecified) }
            #expect(SourceConnectivity.aggregate(parts).connectivityState == Self.expectedState(inputs), "\(inputs)")
        }
    }

    @Test("locality: every combination of up to 4 inputs over all values follows the table")
    func localityTable() {
        for inputs in Self.combinations(of: DataSourceLocality.allCases, upTo: 4) {
            let parts = inputs.map { SourceConnectivity(connectivityState: .online, dataSourceLocality: $0) }
            #expect(SourceConnectivity.aggregate(parts).dataSourceLocality == Self.expectedLocality(inputs), "\(inputs)")
        }
    }

    @Test("trait-level values only: every combination of up to 4 traits of both dimensions at once")
    func traitLeaves() {
        let leaves = TraitConnectivityState.allCases.flatMap { state in
            TraitLocality.allCases.map { TraitConnectivity(state: state, locality: $0).sourceConnectivity }
        }
        for parts in Self.combinations(of: leaves, upTo: 3) {
            let result = SourceConnectivity.aggregate(parts)
            #expect(result.connectivityState == Self.expectedState(parts.map(\.connectivityState)))
            #expect(result.dataSourceLocality == Self.expectedLocality(parts.map(\.dataSourceLocality)))
        }
    }

    @Test(
        "named rows of the table",
        arguments: [
            ([ConnectivityState](), ConnectivityState.unknown),
            ([.unknown, .unknown], .unknown),
            ([.online, .online], .online),
            ([.online, .offline], .partiallyOnline),
            ([.online, .unknown], .partiallyOnline),
            ([.offline, .unknown], .offline),
            ([.offline, .offline], .offline),
            ([.partiallyOnline], .partiallyOnline),
            ([.partiallyOnline, .online], .partiallyOnline),
        ]
    )
    func namedRows(inputs: [ConnectivityState], expected: ConnectivityState) {
        let parts = inputs.map { SourceConnectivity(connectivityState: $0, dataSourceLocality: .unspecified) }
        #expect(SourceConnectivity.aggregate(parts).connectivityState == expected)
    }

    @Test("a leaf is never partiallyOnline or mixed: the leaf types cannot hold those values")
    func leavesExcludeAggregates() {
        let states = Set(TraitConnectivityState.allCases.map(\.connectivityState))
        let localities = Set(TraitLocality.allCases.map(\.dataSourceLocality))
        #expect(!states.contains(.partiallyOnline))
        #expect(!localities.contains(.mixed))
        #expect(states.count == 3 && localities.count == 4)
    }

    @Test("enum words are the ones the MQTT contract publishes")
    func words() {
        #expect(ConnectivityState.allCases.map(\.rawValue) == ["online", "offline", "partiallyOnline", "unknown"])
        #expect(DataSourceLocality.allCases.map(\.rawValue) == ["direct", "localPeer", "remote", "mixed", "unspecified"])
    }
}
