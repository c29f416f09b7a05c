import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Links kept in the registry, added and removed while A runs: a token link, then an OAuth link
/// made with B's own login page whose 2-second access tokens A refreshes, until B revokes them.
extension FulfillmentTests {
    @Test(
        "cloud link add/remove while serve runs; an OAuth link refreshes its tokens and says when it must be relinked")
    func cloudLinkRegistry() async throws {
        try await withHome(accessTokenSeconds: 2) { bridgeB in
            let (brokerA, serveA, folder) = try startA(linkedTo: bridgeB, configLink: false)
            defer {
                serveA.stop()
                brokerA.stop()
            }
            let data = ["--data-dir", folder + "/data"]
            let light = "c2c-z2m-0x00158d0001000001"
            let watcher = try TestMQTTClient(
                brokerA, subscribe: ["traitbridge/devices/\(light)/state", "traitbridge/devices/\(light)/set/result"])
            // The registry is made by serve; wait for it before the CLI opens it too.
            #expect(eventually(timeout: .seconds(15)) { FileManager.default.fileExists(atPath: folder + "/data") })

            let added = try CommandRunner.run(
                [
                    "cloud", "link", "add", "b", "--url", bridgeB.base + "/smarthome", "--token-file",
                    folder + "/token",
                    "--poll-seconds", "1",
                ] + data)
            #expect(added.exitCode == 0, "\(added.standardError)")
            #expect(
                watcher.waitFor("traitbridge/devices/\(light)/state", timeout: .seconds(15)) {
                    $0.payloadText.contains(#""connectivityState":"online""#)
                } != nil, "A picked up the link it was given while running")
            let list = try CommandRunner.run(["cloud", "link", "list"] + data)
            #expect(list.standardOutput.contains("b  \(bridgeB.base)/smarthome  every 1 s"), "\(list.standardOutput)")
            #expect(list.standardOutput.contains("token, registry"))
            let show = try CommandRunner.run(["cloud", "link", "show", "b"] + data)
            #expect(
                show.standardOutput.contains("auth:     bearer token")
                    && !show.standardOutput.contains(Self.staticToken))

            let removed = try CommandRunner.run(["cloud", "link", "remove", "b"] + data)
            #expect(removed.exitCode == 0)
            #expect(
                watcher.waitFor("traitbridge/devices/\(light)/state", timeout: .seconds(15)) { $0.payload.isEmpty }
                    != nil, "the removed link's devices went")
            let again = try CommandRunner.run(["cloud", "link", "remove", "b"] + data)
            #expect(again.exitCode == 4 && again.standardError.contains("no cloud link named 'b'"))

            // OAuth: B's login page gives a code; `add` trades it for tokens that live 2 s.
            let query = "client_id=google&redirect_uri=\(Self.redirect)&state=s&response_type=code"
            let login = try await send(
                bridgeB, .POST, "/oauth/authorize", body: query + "&username=alice&password=correct+horse", form: true)
            let location = try #require(login.headers["location"])
            let code = try #require(location.split(separator: "code=").last?.split(separator: "&").first)
            let oauth = try CommandRunner.run(
                [
                    "cloud", "link", "add", "b2", "--url", bridgeB.base + "/smarthome",
                    "--oauth-token-url", bridgeB.base + "/oauth/token", "--client-id", "google",
                    "--client-secret-file", bridgeB.folder + "/client-secret", "--redirect-uri", Self.redirect,
                    "--code", String(code), "--poll-seconds", "1",
                ] + data)
            #expect(oauth.exitCode == 0, "\(oauth.standardError)")
            let mark = watcher.messages.all.count
            #expect(
                eventually(timeout: .seconds(15)) {
                    watcher.messages.all.dropFirst(mark).contains {
                        $0.topic == "traitbridge/devices/\(light)/state"
                            && $0.payloadText.contains(#""connectivityState":"online""#)
                    }
                }, "the OAuth link bridges B's light")
            // Well past two token lifetimes, a command still crosses: A refreshed its access token.
            try await Task.sleep(for: .seconds(5))
            try watcher.publish(
                "traitbridge/devices/\(light)/set", #"{"id":"oauth-1","trait":"matter.OnOff","command":"on"}"#)
            let z2m = try TestMQTTClient(bridgeB.broker, subscribe: ["zigbee2mqtt/Hall light/set"])
            _ = z2m.waitFor("zigbee2mqtt/Hall light/set")
            try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#, retain: true)
            let result = watcher.waitFor("traitbridge/devices/\(light)/set/result", timeout: .seconds(15)) {
                $0.payloadText.contains("oauth-1")
            }
            #expect(result?.payloadText.contains(#""confirmed""#) == true, "\(result?.payloadText ?? "no result")")
            let shown = try CommandRunner.run(["cloud", "link", "show", "b2"] + data)
            #expect(
                shown.standardOutput.contains("auth:     OAuth, refreshed at \(bridgeB.base)/oauth/token as google"))

            // B revokes the account: the refresh fails, and A says what to do.
            let revoked = try CommandRunner.run([
                "cloud", "tokens", "revoke", "--all", "--data-dir", bridgeB.folder + "/data",
            ])
            #expect(revoked.exitCode == 0, "\(revoked.standardError)")
            let offline = watcher.waitFor("traitbridge/devices/\(light)/state", timeout: .seconds(15)) {
                $0.payloadText.contains("token rejected: relink with")
            }
            #expect(
                offline?.payloadText.contains(#""connectivityState":"offline""#) == true,
                "\(offline?.payloadText ?? "still not offline")")
            let log = TestFiles.text(atPath: folder + "/serve.log")
            #expect(!log.contains("tba_") && !log.contains("tbr_"), "no token of B's in A's log")
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/data/traitbridge.sqlite")[
                .posixPermissions]
            #expect((mode as? Int) == 0o600, "the registry holding link tokens is its owner's only")
        }
    }
}
