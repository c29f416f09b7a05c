import Testing
import TraitBridgeCloud
import TraitBridgeModel

/// Google's secondary user verification: which executions need a yes or a PIN, and what a given
/// answer earns.
@Suite("challenge rules")
struct ChallengeRulesTests {
    let c2c = CloudHome.c2c

    func input(_ id: String, type: String? = nil) throws -> CloudExportInput {
        var input = try #require(try CloudHome.cloudDevices().first { $0.c2cID == id })
        if let type { input.origin?.type = "action.devices.types." + type }
        return input
    }

    func execution(_ command: String, _ params: [String: AttributeValue]) -> ExecuteRequest.Execution {
        ExecuteRequest.Execution(command: command, params: params)
    }

    @Test("secure actions are Google's list: unlock, opening a door/garage/gate/window, disarm, camera off")
    func secureActions() throws {
        let lock = try input("lock")
        #expect(c2c.isSecureAction(execution("LockUnlock", ["lock": .bool(false)]), on: lock))
        #expect(!c2c.isSecureAction(execution("LockUnlock", ["lock": .bool(true)]), on: lock), "locking never asks")
        let garage = try input("blinds", type: "GARAGE")
        #expect(c2c.isSecureAction(execution("OpenClose", ["openPercent": .int(100)]), on: garage))
        #expect(!c2c.isSecureAction(execution("OpenClose", ["openPercent": .int(0)]), on: garage), "closing never asks")
        #expect(c2c.isSecureAction(execution("OpenCloseRelative", ["openRelativePercent": .int(20)]), on: garage))
        let blinds = try input("blinds")
        #expect(!c2c.isSecureAction(execution("OpenClose", ["openPercent": .int(100)]), on: blinds), "blinds are not")
        let camera = try input("plug", type: "CAMERA")
        #expect(c2c.isSecureAction(execution("OnOff", ["on": .bool(false)]), on: camera))
        #expect(!c2c.isSecureAction(execution("OnOff", ["on": .bool(true)]), on: camera))
        #expect(!c2c.isSecureAction(execution("OnOff", ["on": .bool(false)]), on: try input("plug")))
        #expect(c2c.isSecureAction(execution("ArmDisarm", ["arm": .bool(false)]), on: try input("plug")))
        #expect(c2c.isSecureAction(execution("Reboot", [:]), on: try input("plug", type: "ROUTER")))
    }

    @Test("the strongest challenge that applies: pinDevices, then secure actions, then ackDevices")
    func required() throws {
        let lock = try input("lock")
        let light = try input("color-light")
        let unlock = execution("LockUnlock", ["lock": .bool(false)])
        let on = execution("OnOff", ["on": .bool(true)])
        #expect(c2c.requiredChallenge(unlock, on: lock, rules: ChallengeRules()) == .pin, "secure by default")
        #expect(
            GoogleC2C.verify(.pin, answer: nil, rules: ChallengeRules(), recentFailures: 0)
                == .refused("challengeFailedNotSetup"), "and refused while no PIN is set")
        let open = ChallengeRules(secureActions: nil)
        #expect(c2c.requiredChallenge(unlock, on: lock, rules: open) == nil, "secureActions none")
        let pin = ChallengeRules(secureActions: .pin, ackDevices: .init(types: ["LIGHT"]), pin: "1234")
        #expect(c2c.requiredChallenge(unlock, on: lock, rules: pin) == .pin)
        #expect(c2c.requiredChallenge(execution("LockUnlock", ["lock": .bool(true)]), on: lock, rules: pin) == nil)
        #expect(c2c.requiredChallenge(on, on: light, rules: pin) == .ack)
        let ack = ChallengeRules(secureActions: .ack, pinDevices: .init(ids: ["color-light"]), pin: "1234")
        #expect(c2c.requiredChallenge(unlock, on: lock, rules: ack) == .ack)
        #expect(c2c.requiredChallenge(on, on: light, rules: ack) == .pin, "every command on a PIN device")
    }

    @Test("answers: ack passes a yes; a PIN passes only when equal; wrong → challengeFailedPinNeeded; lockout")
    func verify() {
        let rules = ChallengeRules(secureActions: .pin, pin: "4711")
        func check(_ kind: ChallengeRules.Kind, _ answer: ChallengeAnswer?, failures: Int = 0) -> ChallengeVerdict {
            GoogleC2C.verify(kind, answer: answer, rules: rules, recentFailures: failures)
        }
        #expect(check(.ack, nil) == .needed("ackNeeded"))
        #expect(check(.ack, ChallengeAnswer(ack: false)) == .needed("ackNeeded"))
        #expect(check(.ack, ChallengeAnswer(ack: true)) == .pass)
        #expect(check(.ack, ChallengeAnswer(pin: "4711")) == .pass, "the PIN is a stronger yes")
        #expect(check(.pin, nil) == .needed("pinNeeded"))
        #expect(check(.pin, ChallengeAnswer(ack: true)) == .needed("pinNeeded"), "a yes is not a PIN")
        #expect(check(.pin, ChallengeAnswer(pin: "4711")) == .pass)
        for wrong in ["4712", "471", "47110", "", "４７１１"] {
            #expect(check(.pin, ChallengeAnswer(pin: wrong)) == .needed("challengeFailedPinNeeded"), "\(wrong)")
        }
        #expect(check(.pin, ChallengeAnswer(pin: "4711"), failures: 5) == .refused("tooManyFailedAttempts"))
        #expect(check(.pin, ChallengeAnswer(pin: "4711"), failures: 4) == .pass)
        let unset = ChallengeRules(secureActions: .pin)
        #expect(
            GoogleC2C.verify(.pin, answer: ChallengeAnswer(pin: "1"), rules: unset, recentFailures: 0)
                == .refused("challengeFailedNotSetup"))
    }

    @Test("an EXECUTE answer asking for a challenge says nothing of connectivity; one saying offline does")
    func challengeAnswerKeepsConnectivity() {
        func report(online: Bool?, _ status: String, _ code: String?) -> CloudDeviceReport {
            CloudDeviceReport(c2cID: "plug", online: online, status: status, errorCode: code, isCommandResult: true)
        }
        #expect(c2c.connectivity(of: report(online: true, "ERROR", "challengeNeeded")) == nil)
        #expect(c2c.connectivity(of: report(online: nil, "ERROR", "challengeNeeded")) == nil)
        #expect(c2c.connectivity(of: report(online: nil, "ERROR", "deviceOffline"))?.state == .offline)
        #expect(c2c.connectivity(of: report(online: false, "ERROR", "valueOutOfRange"))?.state == .offline)
        #expect(c2c.connectivity(of: report(online: true, "SUCCESS", nil))?.state == .online)
        var query = report(online: true, "ERROR", "hardError")
        query.isCommandResult = false
        #expect(c2c.connectivity(of: query)?.state == .unknown, "a QUERY's ERROR: the cloud could not read it")
    }
}
