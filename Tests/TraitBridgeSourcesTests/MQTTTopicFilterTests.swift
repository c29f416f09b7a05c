import Testing
import TraitBridgeSources

@Suite("MQTT topic filters")
struct MQTTTopicFilterTests {
    @Test(
        "+ is one level, # the rest and the parent; anything else is exact",
        arguments: [
            ("a/+", "a/b", true), ("a/+", "a/b/c", false), ("a/+", "a", false), ("a/#", "a", true),
            ("a/#", "a/b/c", true),
            ("#", "x/y", true), ("+/online", "shelly/online", true), ("+/+/online", "shelly/online", false),
            ("a/b", "a/b", true), ("a/b", "a/b/", false), ("a//c", "a//c", true), ("+", "", true),
            ("a/+/c", "a/b/d", false),
        ])
    func matches(filter: String, topic: String, expected: Bool) {
        #expect(MQTTTopicFilter.matches(filter, topic) == expected, "\(filter) vs \(topic)")
    }
}
