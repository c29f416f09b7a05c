import Foundation

/// The command-line tools the tests use as real peers: openssl (throw-away keys and certificates,
/// never swift-crypto's key generation, which LeakSanitizer reports) and `../shared/tools/c2c-validate`.
public enum TestTools {
    /// A failed tool run, with what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `/usr/bin/openssl arguments`; throws with its output when it fails.
    public static func openssl(_ arguments: [String]) throws {
        let (status, output) = try run("/usr/bin/openssl", arguments)
        guard status == 0 else { throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(output)") }
    }

    /// An RSA key pair in `folder`: `name`.pem (private, PKCS#8) and `name`.pub.pem.
    public static func makeKeyPair(_ name: String, in folder: String) throws {
        try openssl([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(folder)/\(name).pem",
        ])
        try openssl(["pkey", "-in", "\(folder)/\(name).pem", "-pubout", "-out", "\(folder)/\(name).pub.pem"])
    }

    /// A self-signed certificate for 127.0.0.1 (a day long) and its key: `cert.pem`, `key.pem` in `folder`.
    public static func makeCertificate(in folder: String) throws {
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
        ])
    }

    /// `../shared/tools/c2c-validate arguments` (Google's JSON Schemas): its exit status and output.
    public static func c2cValidate(_ shared: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try run("/usr/bin/python3", [shared + "/tools/c2c-validate"] + arguments)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
