import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOSSL
public import TraitBridgeJSON
public import TraitBridgeModel

/// How a cloud link speaks HTTP: one POST per intent with the link's bearer token, bounded in size
/// and time, every failure named in words a user can act on (and with the connectivity it means).
public struct LinkTransport: Sendable {
    /// Why a request got no usable answer, and what that makes the link's traits.
    public struct Failure: Error, Sendable, Hashable {
        public var message: String
        public var state: TraitConnectivityState

        var isTokenRejected: Bool { message.hasPrefix("token rejected (HTTP") }
    }

    let settings: CloudLinkSettings
    let client: HTTPClient
    let credentials: LinkCredentials

    /// `onRefresh` is told each access token an OAuth link's refresh buys (to keep it in the registry).
    public init(
        settings: CloudLinkSettings, onRefresh: @escaping @Sendable (String, OAuthGrant) -> Void = { _, _ in }
    ) {
        self.settings = settings
        self.credentials = LinkCredentials(settings: settings, onRefresh: onRefresh)
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { tls.trustRoots = .file(caFile) }
        self.client = HTTPClient(
            configuration: .init(
                tlsConfiguration: tls, redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(5), read: settings.timeout.timeAmount)))
    }

    public func shutdown() async { try? await client.shutdown() }

    /// POSTs `body` (an intent request); the answer's bytes, or why there is none.
    public func send(_ body: [UInt8], intent: String) async -> Result<[UInt8], Failure> {
        let token: String
        switch await credentials.current(client: client) {
        case .success(let current): token = current
        case .failure(let failure): return .failure(failure)
        }
        let answer = await send(body, intent: intent, token: token)
        // An OAuth link's token was refused: one refresh, one more try.
        if case .failure(let failure) = answer, failure.isTokenRejected, await credentials.canRefresh {
            switch await credentials.replacing(token, client: client) {
            case .success(let renewed): return await send(body, intent: intent, token: renewed)
            case .failure(let failure): return .failure(failure)
            }
        }
        return answer
    }

    private func send(_ body: [UInt8], intent: String, token: String) async -> Result<[UInt8], Failure> {
        var request = HTTPClientRequest(url: settings.url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        func failure(_ message: String, _ state: TraitConnectivityState = .offline) -> Result<[UInt8], Failure> {
            .failure(Failure(message: message, state: state))
        }
        do {
            let response = try await client.execute(request, timeout: settings.timeout.timeAmount)
            let bytes: ByteBuffer
            do {
                bytes = try await response.body.collect(upTo: settings.maxAnswerBytes)
            } catch {
                return failure("\(intent) answer over \(settings.maxAnswerBytes) bytes")
            }
            switch response.status.code {
            case 200:
                let answer = Array(bytes.readableBytesView)
                if let code = Self.transactionError(answer) { return failure("\(intent) answered errorCode \(code)") }
                return .success(answer)
            case 401, 403:
                return failure(
                    "token rejected (HTTP \(response.status.code)): give the link a new token "
                        + "(traitbridge cloud link add \(settings.name) …, or the config's tokenFile)")
            default:
                return failure("\(intent) answered HTTP \(response.status.code)")
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return failure("\(intent) got no answer within \(settings.timeout.components.seconds) s", .unknown)
        } catch {
            return failure("\(intent) failed: \(Self.describe(error))")
        }
    }

    /// `{requestId, inputs: [{intent: "action.devices.<name>", payload}]}`.
    public static func intent(_ name: String, payload: JSONValue? = nil) -> [UInt8] {
        var input: JSONObject = ["intent": .string("action.devices." + name)]
        if let payload { input.append("payload", payload) }
        let request: JSONValue = ["requestId": .string(UUID().uuidString), "inputs": [.object(input)]]
        return request.serializedBytes()
    }

    /// A whole-transaction `payload.errorCode` (authFailure, protocolError…), when the answer has one.
    static func transactionError(_ answer: [UInt8]) -> String? {
        guard let root = try? JSONDocument.parse(answer).root else { return nil }
        return root["payload"]?["errorCode"]?.string
    }

    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("NIOSSL") || text.contains("handshake") { return "TLS: \(text)" }
        return text
    }
}
