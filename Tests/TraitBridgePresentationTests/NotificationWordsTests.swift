import Testing
import TraitBridgeJSON
import TraitBridgePresentation

/// Notifications as the CLI's `history` and a camera's page list them: the shapes the Frigate and
/// zigbee2mqtt plug-ins publish on a device's event topic, and any other as its JSON, cut short.
@Suite("Notifications in words")
struct NotificationWordsTests {
    @Test("motion, a tracked object (score, zones), a review item, a button's action")
    func knownShapes() {
        #expect(ValuePresenter.notificationText(["kind": "motion", "state": "start"]) == "motion started")
        #expect(ValuePresenter.notificationText(["kind": "motion", "state": "end"]) == "motion ended")
        let person: JSONValue = [
            "kind": "object", "type": "new", "label": "person", "score": 0.8671875, "zones": ["porch", "path"],
        ]
        #expect(ValuePresenter.notificationText(person) == "person seen (87 %) in porch, path")
        #expect(ValuePresenter.notificationText(["kind": "object", "type": "end", "label": "car"]) == "car gone")
        let review: JSONValue = ["kind": "review", "type": "new", "severity": "alert", "objects": ["person"]]
        #expect(ValuePresenter.notificationText(review) == "alert opened: person")
        #expect(ValuePresenter.notificationText(["kind": "action", "action": "single"]) == "pressed: single")
    }

    @Test("another shape as its JSON, at most 120 characters; a truncated one by its size; a hostile score")
    func otherShapes() {
        #expect(ValuePresenter.notificationText(["doorbell": true]) == #"{"doorbell":true}"#)
        let long = ValuePresenter.notificationText(["text": .string(String(repeating: "x", count: 500))])
        #expect(long.count == 120 && long.hasSuffix("…"))
        #expect(ValuePresenter.notificationText(["truncated": 9000]) == "a notification of 9000 bytes")
        let huge: JSONValue = ["kind": "object", "type": "new", "label": "cat", "score": 1e300]
        #expect(ValuePresenter.notificationText(huge).hasPrefix("cat seen ("), "no trap on a score beyond Int")
    }
}
