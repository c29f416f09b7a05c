/// How one fuzz input becomes several MQTT messages: records separated by two NUL bytes, each
/// `topic` + newline + `payload`. A record without a newline is a payload for the target's first
/// topic. The fuzzer mutates topics as freely as payloads, so the topic classifiers are fuzzed too.
public enum FuzzInput {
    /// At most this many messages per input: enough for discovery, values and a command in one run.
    public static let maximumRecords = 16
    static let separator: [UInt8] = [0, 0]

    /// The messages of an input (bounded), in order.
    public static func messages(_ bytes: [UInt8], defaultTopic: String) -> [(topic: String, payload: [UInt8])] {
        var messages: [(topic: String, payload: [UInt8])] = []
        var start = 0
        var index = 0
        func take(_ end: Int) {
            let record = bytes[start..<end]
            if let newline = record.firstIndex(of: UInt8(ascii: "\n")) {
                messages.append(
                    (
                        String(decoding: record[record.startIndex..<newline], as: UTF8.self),
                        Array(record[(newline + 1)...])
                    ))
            } else {
                messages.append((defaultTopic, Array(record)))
            }
        }
        while index + 1 < bytes.count, messages.count < maximumRecords - 1 {
            if bytes[index] == 0, bytes[index + 1] == 0 {
                take(index)
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        if messages.count < maximumRecords { take(bytes.count) }
        return messages
    }

    /// The input that `messages` reads back as these messages: how seeds are written.
    public static func encode(_ messages: [(topic: String, payload: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, message) in messages.enumerated() {
            if index > 0 { bytes += separator }
            bytes += Array(message.topic.utf8) + [UInt8(ascii: "\n")] + message.payload
        }
        return bytes
    }
}
