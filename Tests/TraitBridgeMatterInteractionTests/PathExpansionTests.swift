import Testing
import TraitBridgeMatterInteraction

/// Wildcard and concrete paths against a small bridge: wildcards skip what is not there, concrete paths get
/// the status of the first missing level, globals expand like other attributes.
@Suite("Path expansion")
struct PathExpansionTests {
    /// A root endpoint (Descriptor, Basic Information), an aggregator and one bridged light.
    static let layout = NodeLayout(endpoints: [
        EndpointLayout(id: 0, clusters: [
            .withGlobals(id: 0x1D, attributes: [0, 1, 2, 3], dataVersion: 7),
            .withGlobals(id: 0x28, attributes: [0, 1, 2, 4], dataVersion: 3),
        ]),
        EndpointLayout(id: 1, clusters: [.withGlobals(id: 0x1D, attributes: [0, 1, 2, 3], dataVersion: 9)]),
        EndpointLayout(id: 2, clusters: [
            .withGlobals(id: 0x1D, attributes: [0, 1, 2, 3]), .withGlobals(id: 0x06, attributes: [0]),
            ClusterLayout(id: 0xFFF1_FC00, attributes: [0, 0xFFF1_0001, 0xFFFD]),
        ]),
    ])

    struct Case: Sendable, CustomStringConvertible {
        let path: AttributePath
        let expected: [String]
        var description: String { path.description }
    }

    static let cases: [Case] = [
        Case(path: AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3), expected: ["0/0x1d/0x3"]),
        Case(path: AttributePath(endpoint: 9, cluster: 0x1D, attribute: 3), expected: ["0x7F 9/0x1d/0x3"]),
        Case(path: AttributePath(endpoint: 1, cluster: 0x28, attribute: 0), expected: ["0xC3 1/0x28/0x0"]),
        Case(path: AttributePath(endpoint: 0, cluster: 0x28, attribute: 9), expected: ["0x86 0/0x28/0x9"]),
        Case(path: AttributePath(endpoint: 0, cluster: 0x28, attribute: 0xFFFB), expected: ["0/0x28/0xfffb"]),
        // Wildcard endpoint, concrete cluster: every endpoint with it, none with a status.
        Case(path: AttributePath(cluster: 0x06, attribute: 0), expected: ["2/0x6/0x0"]),
        Case(path: AttributePath(cluster: 0x46, attribute: 0), expected: []),
        Case(path: AttributePath(cluster: 0x1D, attribute: 3), expected: ["0/0x1d/0x3", "1/0x1d/0x3", "2/0x1d/0x3"]),
        // Wildcard attribute: the globals come with the rest.
        Case(
            path: AttributePath(endpoint: 2, cluster: 0x06),
            expected: ["2/0x6/0x0", "2/0x6/0xfff8", "2/0x6/0xfff9", "2/0x6/0xfffb", "2/0x6/0xfffc", "2/0x6/0xfffd"]),
        Case(path: AttributePath(endpoint: 3, cluster: 0x06), expected: []),
        // Flags: skip the root and the globals; skip command lists; skip custom clusters and attributes.
        Case(
            path: AttributePath(attribute: 0xFFFD, wildcardFlags: .skipRootNode),
            expected: ["1/0x1d/0xfffd", "2/0x1d/0xfffd", "2/0x6/0xfffd", "2/0xfff1fc00/0xfffd"]),
        Case(
            path: AttributePath(endpoint: 2, cluster: 0x06, wildcardFlags: [.skipGlobalAttributes]),
            expected: ["2/0x6/0x0"]),
        Case(
            path: AttributePath(endpoint: 2, cluster: 0x06, wildcardFlags: [.skipCommandLists, .skipAttributeList]),
            expected: ["2/0x6/0x0", "2/0x6/0xfffc", "2/0x6/0xfffd"]),
        Case(path: AttributePath(endpoint: 2, attribute: 0, wildcardFlags: .skipCustomElements),
             expected: ["2/0x1d/0x0", "2/0x6/0x0"]),
    ]

    static func render(_ targets: [ReadTarget]) -> [String] {
        targets.map { target in
            switch target {
            case .attribute(let path): path.description
            case .status(let path, let code): "0x" + String(code.rawValue, radix: 16, uppercase: true) + " \(path)"
            }
        }
    }

    @Test("one path expands as the spec says", arguments: cases)
    func expansion(_ testCase: Case) throws {
        #expect(Self.render(try Self.layout.expand([testCase.path])) == testCase.expected)
    }

    @Test("the full wildcard (python-matter-server's interview) reaches every attribute, globals included")
    func fullWildcard() throws {
        let targets = try Self.layout.expand([AttributePath()])
        let count = Self.layout.endpoints.flatMap(\.clusters).map(\.attributes.count).reduce(0, +)
        #expect(targets.count == count)
        #expect(targets.contains(.attribute(.init(endpoint: 0, cluster: 0x28, attribute: 0xFFFB))))
    }

    @Test("Apple's recorded read of ICD Management gets UNSUPPORTED_CLUSTER per path (CircuitMatter sent none)")
    func recordedICDRead() throws {
        let request = try ReadRequest(decoding: RecordedInteraction.readICDManagement)
        let node = NodeLayout(endpoints: [
            EndpointLayout(id: 0, clusters: [.withGlobals(id: 0x30, attributes: [0, 1, 2, 3, 4])]),
        ])
        #expect(Self.render(try node.expand(request.attributeRequests)) == [
            "0/0x30/0x4", "0xC3 0/0x46/0x6", "0xC3 0/0x46/0x7", "0xC3 0/0x46/0x0", "0xC3 0/0x46/0x1",
            "0xC3 0/0x46/0x2",
        ])
    }

    @Test("a data version filter at the current version leaves the cluster out; an old version does not")
    func dataVersionFilters() throws {
        let path = AttributePath(cluster: 0x1D, attribute: 0)
        let current = DataVersionFilter(path: ClusterPath(endpoint: 0, cluster: 0x1D), dataVersion: 7)
        let stale = DataVersionFilter(path: ClusterPath(endpoint: 1, cluster: 0x1D), dataVersion: 8)
        #expect(Self.render(try Self.layout.expand([path], dataVersionFilters: [current, stale])) == [
            "1/0x1d/0x0", "2/0x1d/0x0",
        ])
    }

    @Test("more paths than the bound, or a list index, refuse the whole request")
    func refusals() {
        let paths = Array(repeating: AttributePath(), count: 33)
        #expect(throws: PathExpansionError.tooManyPaths(count: 33, limit: 32)) { try Self.layout.expand(paths) }
        #expect(PathExpansionError.tooManyPaths(count: 33, limit: 32).status == .pathsExhausted)
        let indexed = AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3, listIndex: .index(0))
        #expect(throws: PathExpansionError.self) { try Self.layout.expand([indexed]) }
    }
}
