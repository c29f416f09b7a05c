import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing
import TraitBridgeTesting

/// Google calls only https: `serve` with `http.tls` answers over TLS with the configured
/// certificate (made by openssl for the test, trusted by the test's client) and not in cleartext.
extension FulfillmentTests {
    @Test("https: SYNC over TLS with the configured certificate; cleartext on that port gets no answer")
    func tls() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestTools.makeCertificate(in: folder)
        let section = #""tls": {"certFile": "\#(folder)/cert.pem", "keyFile": "\#(folder)/key.pem"},"#
        try await withHome(httpExtra: section) { home in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(folder + "/cert.pem")
            let client = HTTPClient(configuration: .init(tlsConfiguration: configuration))
            var failure: (any Error)?
            do {
                let base = home.base.replacingOccurrences(of: "http://", with: "https://")
                var request = HTTPClientRequest(url: base + "/smarthome")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(Self.staticToken)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(.init(string: intent("SYNC")))
                let response = try await client.execute(request, timeout: .seconds(15))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
                #expect(response.status == .ok, "\(body)")
                #expect(body.contains(#""agentUserId":"script-user""#), "\(body)")
            } catch { failure = error }
            try await client.shutdown()
            if let failure { throw failure }
            // The same port in cleartext: no HTTP answer (the TLS handshake fails instead).
            let plain = try? await send(home, .POST, "/smarthome", body: intent("SYNC"), token: Self.staticToken)
            #expect(plain == nil || plain?.status != 200, "not served without TLS")
        }
    }
}
