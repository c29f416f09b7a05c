import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeTesting

@Suite("Cloud-to-cloud export")
struct CloudExportTests {
    let c2c = CloudFixtures.c2c

    @Test("c2c-validate accepts the SYNC and QUERY exports of a home with every supported type",
          .enabled(if: CloudFixtures.paths.shared != nil, "needs ../shared/tools/c2c-validate"))
    func validatorAcceptsExports() throws {
        let devices = try CloudHome.cloudDevices() + CloudHome.localDevices()
        let (sync, skipped) = c2c.syncResponse(devices, agentUserID: "tb-test", requestID: "r-sync")
        #expect(skipped.isEmpty, "\(skipped)")
        let syncPath = try CloudHome.write(sync.serializedBytes(), name: "sync.json")
        let queryPath = try CloudHome.write(c2c.queryResponse(devices, requestID: "r-query").serializedBytes(), name: "query.json")
        defer {
            try? FileManager.default.removeItem(atPath: syncPath)
            try? FileManager.default.removeItem(atPath: queryPath)
        }
        let syncResult = try CloudHome.validate(["sync", syncPath])
        #expect(syncResult.status == 0, "\(syncResult.output)")
        let queryResult = try CloudHome.validate(["query", queryPath, "--sync", syncPath])
        #expect(queryResult.status == 0, "\(queryResult.output)")
    }
}
