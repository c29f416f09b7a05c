import NIOCore
import TraitBridgeJSON
import TraitBridgeModel

/// The sending half of one controller connection: it encrypts once the session is verified and
/// writes whole messages in order, so an event never lands inside a response; it also keeps the
/// characteristics this controller subscribed to and the values it was last told.
actor HAPConnection {
    let id: Int
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel
    private var cipher: SessionCipher?
    private(set) var controller: String?
    private var subscriptions: [HAPDatabase.CharacteristicKey: JSONValue?] = [:]
    /// A controller may subscribe to at most this many characteristics (a bound per connection).
    static let subscriptionLimit = 4096

    init(id: Int, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel) {
        self.id = id
        self.outbound = outbound
        self.channel = channel
    }

    /// From now on everything sent is encrypted for `controller`'s session.
    func secure(_ cipher: SessionCipher, controller: String) {
        self.cipher = cipher
        self.controller = controller
    }

    /// Sends one whole message (a response or an event); false when the connection is gone.
    @discardableResult
    func send(_ plaintext: [UInt8]) async -> Bool {
        let bytes = cipher?.seal(plaintext) ?? plaintext
        do {
            try await outbound.write(ByteBuffer(bytes: bytes))
            return true
        } catch {
            return false
        }
    }

    func close() { channel.close(promise: nil) }

    /// Subscribes (or not) to a characteristic; false when the bound is reached.
    func subscribe(_ key: HAPDatabase.CharacteristicKey, _ on: Bool, current: JSONValue?) -> Bool {
        guard on else {
            subscriptions[key] = nil
            return true
        }
        guard subscriptions[key] != nil || subscriptions.count < Self.subscriptionLimit else { return false }
        subscriptions[key] = .some(current)
        return true
    }

    func isSubscribed(_ key: HAPDatabase.CharacteristicKey) -> Bool { subscriptions[key] != nil }

    /// Events being written now: a controller that stopped reading holds at most two, and the
    /// values it missed go out with the next change (each is compared with what it was last told).
    private var notifying = 0

    /// Sends an event with each subscribed characteristic of `accessories` whose value changed.
    func notify(accessories: Set<Int>, database: HAPDatabase, graph: HomeGraph) async {
        guard controller != nil, !subscriptions.isEmpty, notifying < 2 else { return }
        notifying += 1
        defer { notifying -= 1 }
        var changed: [(aid: Int, iid: Int, value: JSONValue)] = []
        for (key, last) in subscriptions where accessories.contains(key.aid) {
            guard let item = database.characteristic(aid: key.aid, iid: key.iid),
                case .success(let value) = HAPValues.read(item, in: graph), value != last
            else { continue }
            subscriptions[key] = .some(value)
            changed.append((key.aid, key.iid, value))
        }
        guard !changed.isEmpty else { return }
        changed.sort { ($0.aid, $0.iid) < ($1.aid, $1.iid) }
        await send(HAPResponse.event(HAPDocuments.event(changed)))
    }
}
