import Foundation

/// `/pairings` (HAP §5.10–5.12): an admin controller adds, removes and lists controllers.
extension PairingState {
    /// What a `/pairings` request led to; `removed`: controllers whose sessions must close.
    public struct PairingsAnswer: Sendable {
        public var tlv: TLV8
        public var changed = false
        public var removed: [String] = []
    }

    /// One `POST /pairings` body from the verified controller `requester`.
    public mutating func pairings(_ request: TLV8, requester: String) -> PairingsAnswer {
        guard request.byte(.state) == 1, let method = request.byte(.method) else {
            return PairingsAnswer(tlv: .error(.unknown, state: 2))
        }
        guard identity.controller(requester)?.isAdmin == true else {
            return PairingsAnswer(tlv: .error(.authentication, state: 2))
        }
        switch method {
        case 3: return add(request)
        case 4: return remove(request)
        case 5: return list()
        default: return PairingsAnswer(tlv: .error(.unknown, state: 2))
        }
    }

    private mutating func add(_ request: TLV8) -> PairingsAnswer {
        guard let id = request[.identifier].flatMap({ String(bytes: $0, encoding: .utf8) }), !id.isEmpty,
            id.utf8.count <= 64, let key = request[.publicKey], key.count == 32,
            let permissions = request.byte(.permissions)
        else { return PairingsAnswer(tlv: .error(.unknown, state: 2)) }
        let isAdmin = permissions & 1 == 1
        if let index = identity.controllers.firstIndex(where: { $0.id == id }) {
            // HAP: the same id with another key is an error; the same key updates the permissions.
            guard identity.controllers[index].publicKey == key else {
                return PairingsAnswer(tlv: .error(.unknown, state: 2))
            }
            identity.controllers[index].isAdmin = isAdmin
        } else {
            guard identity.controllers.count < Self.controllerLimit else {
                return PairingsAnswer(tlv: .error(.maxPeers, state: 2))
            }
            identity.controllers.append(PairedController(id: id, publicKey: key, isAdmin: isAdmin))
        }
        return PairingsAnswer(tlv: Self.done, changed: true)
    }

    private mutating func remove(_ request: TLV8) -> PairingsAnswer {
        guard let id = request[.identifier].flatMap({ String(bytes: $0, encoding: .utf8) }) else {
            return PairingsAnswer(tlv: .error(.unknown, state: 2))
        }
        guard identity.controller(id) != nil else { return PairingsAnswer(tlv: Self.done) }
        identity.controllers.removeAll { $0.id == id }
        var removed = [id]
        // HAP §5.11: once no admin is left, every pairing goes and the accessory is unpaired.
        if !identity.controllers.contains(where: \.isAdmin) {
            removed += identity.controllers.map(\.id)
            identity.controllers.removeAll()
        }
        return PairingsAnswer(tlv: Self.done, changed: true, removed: removed)
    }

    private func list() -> PairingsAnswer {
        var answer = TLV8()
        answer.append(.state, byte: 2)
        for (index, controller) in identity.controllers.enumerated() {
            if index > 0 { answer.append(.separator, []) }
            answer.append(.identifier, Array(controller.id.utf8))
            answer.append(.publicKey, controller.publicKey)
            answer.append(.permissions, byte: controller.isAdmin ? 1 : 0)
        }
        return PairingsAnswer(tlv: answer)
    }

    private static var done: TLV8 {
        var answer = TLV8()
        answer.append(.state, byte: 2)
        return answer
    }

    /// The controller `id`'s long-term public key, for pair-verify.
    public func publicKey(of id: String) -> [UInt8]? { identity.controller(id)?.publicKey }
}
