import Foundation
import Testing
import TraitBridgeModel

@testable import TraitBridgeEngine

@Suite("Publication ledger: publish and store only on change; a restored row is not written again")
struct PublicationLedgerTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a state or description with the hash last published is no news; forgetting publishes again")
    func publishOnChange() throws {
        var ledger = PublicationLedger()
        let id = try DeviceID("lamp")
        var states: [Bool] = []
        for hash in [1, 1, 2] { states.append(ledger.publishState(id, hash: hash, known: ledger[id])) }
        #expect(states == [true, false, true])
        let descriptions = [ledger.publishDescription(id, hash: 7), ledger.publishDescription(id, hash: 7)]
        #expect(descriptions == [true, false])
        ledger.forgetEverythingPublished()
        let again = [ledger.publishState(id, hash: 2, known: ledger[id]), ledger.publishDescription(id, hash: 7)]
        #expect(again == [true, true], "after a reconnect everything is published again")
    }

    @Test("a restored device's first description is what its row holds: storing it again writes nothing")
    func restoredRow() throws {
        var ledger = PublicationLedger()
        let id = try DeviceID("lamp")
        ledger.restored(id, feeds: [:])
        #expect(ledger[id]?.isRestoredRow == true && ledger[id]?.restoredFeeds == nil)
        _ = ledger.publishDescription(id, hash: 42)
        let stores = [ledger.storeDescription(id, hash: 42), ledger.storeDescription(id, hash: 43)]
        #expect(stores == [false, true])
    }

    @Test("values: a change sets the time, a known time is kept; a description drops the registry's feeds")
    func valuesAndNames() throws {
        var ledger = PublicationLedger()
        let id = try DeviceID("lamp")
        ledger.valuesKnown(id, since: now)
        ledger.valuesKnown(id, since: now.addingTimeInterval(5))
        #expect(ledger[id]?.lastUpdate == now)
        ledger.valuesChanged(id, at: now.addingTimeInterval(9))
        #expect(ledger[id]?.lastUpdate == now.addingTimeInterval(9))
        ledger.described(id, sourceName: "Hall light")
        #expect(ledger[id]?.sourceName == "Hall light")
        ledger.forget(id)
        #expect(ledger[id] == nil)
    }
}
