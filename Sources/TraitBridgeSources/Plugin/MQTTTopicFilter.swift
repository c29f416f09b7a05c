/// MQTT topic filters (`+` one level, `#` the rest, the parent level included): whether a filter
/// covers a topic, for a plug-in's subscriptions and the engine's "is this subscribed already".
public enum MQTTTopicFilter {
    public static func matches(_ filter: String, _ topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return index <= topicLevels.count }
            guard index < topicLevels.count, level == "+" || level == topicLevels[index] else { return false }
        }
        return filterLevels.count == topicLevels.count
    }
}
