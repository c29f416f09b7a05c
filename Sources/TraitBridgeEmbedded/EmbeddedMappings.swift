public import Foundation

/// The mappings the binary was built with (`mappings/`, embedded by the `EmbedMappings` build
/// plugin) and the build's version and commit: what makes a copied `traitbridge` work from any
/// folder with no flags, and what `--version` and `/metrics` report.
public enum EmbeddedMappings {
    /// The release (`VERSION`), e.g. `0.3.0`.
    public static var version: String { EmbeddedMappingsData.version }
    /// `git describe --always --dirty` at build time (`unknown` outside a git checkout).
    public static var commit: String { EmbeddedMappingsData.commit }

    /// The HTTP API's OpenAPI document (`api/openapi.json`): what `/api/v1/openapi.json` serves.
    public static var openAPIDocument: [UInt8] {
        Data(base64Encoded: EmbeddedMappingsData.openAPI).map { [UInt8]($0) } ?? []
    }

    /// Each embedded file: its path under `mappings/` (`catalog/traits.json`) and its bytes.
    public static var files: [(path: String, bytes: Data)] {
        EmbeddedMappingsData.files.compactMap { file in
            Data(base64Encoded: file.base64).map { (file.path, $0) }
        }
    }

    /// One embedded file's bytes (only that one decoded: the read commands need one small table).
    public static func file(_ path: String) -> Data? {
        EmbeddedMappingsData.files.first { $0.path == path }.flatMap { Data(base64Encoded: $0.base64) }
    }
}
