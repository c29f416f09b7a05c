/// An EXECUTE request body (Google's shape) for the cloud link `link`; its answer goes back to
/// the bridge with `requestID` (``Bridge/linkExecuted(_:link:requestID:)``).
public struct LinkRequest: Sendable, Hashable {
    public var link: String
    public var requestID: String
    public var body: [UInt8]

    public init(link: String, requestID: String, body: [UInt8]) {
        self.link = link
        self.requestID = requestID
        self.body = body
    }
}
