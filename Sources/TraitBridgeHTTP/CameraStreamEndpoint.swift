import FoundationEssentials
import Hummingbird
import Logging
import NIOCore
import Synchronization
import TraitBridgeEngine
import TraitBridgeJSON

/// `POST /camera-stream`: the signalling URL a GetCameraStream answer names. The viewer (Google's
/// display, a phone, another bridge) posts `{"action": "offer", "deviceId", "sdp"}` with the
/// stream token as its bearer token, and gets `{"action": "answer", "sdp"}` once the camera
/// answered; `{"action": "end"}` ends what the token opened. Signalling only: the media goes
/// between the viewer and the camera. Bounded: 128 KB a request; the token expires in 5 minutes.
struct CameraStreamEndpoint: Sendable {
    let bridge: Bridge
    let logger: Logger
    static let maxBodyBytes = 131_072
    static let path = "camera-stream"

    func respond(_ request: Request) async -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            case let token = String(header.dropFirst(7).drop { $0 == " " }), !token.isEmpty, token.utf8.count <= 512,
            !token.contains(where: \.isWhitespace)
        else {
            return Self.error(
                .unauthorized, "give the stream token of the GetCameraStream answer (Authorization: Bearer …)")
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: Self.maxBodyBytes) } catch {
            return Self.error(.contentTooLarge, "the request is over \(Self.maxBodyBytes) bytes")
        }
        let root: JSON
        do { root = try JSONDocument.parse(Array(body.readableBytesView)).root } catch {
            return Self.error(.badRequest, "POST /camera-stream: the body is not JSON: \(error)")
        }
        guard root.kind == .object, let action = root["action"]?.string else {
            return Self.error(.badRequest, #"expected {"action": "offer", "sdp": …} or {"action": "end"}"#)
        }
        let reply: CameraStreamReply
        switch action {
        case "offer":
            guard let sdp = root["sdp"]?.string else {
                return Self.error(.badRequest, "$.sdp: an offer needs the viewer's SDP as a string")
            }
            reply = await bridge.cameraStream(offer: sdp, token: token)
        case "end":
            reply = bridge.cameraStreamEnd(token: token)
        default:
            return Self.error(.badRequest, "$.action: '\(action.prefix(40))' is not offer or end")
        }
        switch reply {
        case .answer(let sdp, let session):
            let answer: JSONValue = ["action": "answer", "sdp": .string(sdp), "mediaSessionId": .string(session)]
            return FulfillmentServer.json(.ok, answer.serializedBytes())
        case .ended(let count):
            logger.info("camera stream: the viewer ended \(count) live view(s)")
            return FulfillmentServer.json(.ok, Array("{}".utf8))
        case .refused(let status, let message):
            return Self.error(HTTPResponse.Status(code: status), message)
        }
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body: JSONValue = ["error": .string(message)]
        var headers: HTTPFields = [:]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return FulfillmentServer.json(status, body.serializedBytes(), headers: headers)
    }
}

/// The base URL the listener answers on, once it is bound (port 0 takes any free port): what a
/// GetCameraStream answer's signalling URL is made from.
final class ListeningURL: Sendable {
    private let url = Mutex<String?>(nil)

    func set(_ value: String) { url.withLock { $0 = value } }
    var value: String? { url.withLock { $0 } }
}
