import Foundation
import TraitBridgeEmbedded

/// The mappings a command reads: the catalog embedded in the binary, with the files of a folder
/// the user names (`--mappings DIR`, the config's `mappings`) added or put in place of the
/// embedded ones, file by file. The loaders read folders, so the result is written to a private
/// temporary folder (mkdtemp: only this user can read it), removed when this value goes away;
/// ``explain(_:)`` turns its paths in a message back into the user's files.
final class MappingsFolder {
    /// The folder to hand to the loaders.
    let path: String
    /// What was read, for `mappings validate` and the logs: "the embedded catalog (traitbridge
    /// 0.3.0, abc123)" or "/etc/tb/mappings over the embedded catalog (…)".
    let description: String
    /// Each written file's path → where it came from (the user's file, or `embedded:mappings/…`).
    private var origins: [String: String] = [:]

    static var embeddedDescription: String {
        "the embedded catalog (traitbridge \(EmbeddedMappings.version), \(EmbeddedMappings.commit))"
    }

    /// The embedded catalog, with `overlay`'s files over it when given.
    init(overlay: String?) throws(MappingsFolderError) {
        var isDirectory: ObjCBool = false
        if let overlay,
            !FileManager.default.fileExists(atPath: overlay, isDirectory: &isDirectory) || !isDirectory.boolValue
        {
            throw .noFolder(overlay)
        }
        var template = Array((NSTemporaryDirectory() + "/traitbridge-mappings-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .cannotWrite(NSTemporaryDirectory(), String(cString: strerror(errno)))
        }
        path = String(cString: made)
        description = overlay.map { "\($0) over \(Self.embeddedDescription)" } ?? Self.embeddedDescription
        do {
            for file in EmbeddedMappings.files {
                try write(file.bytes, to: file.path, origin: "embedded:mappings/" + file.path)
            }
            if let overlay { try copy(overlay) }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw .cannotWrite(path, "\(error)")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `text` with this folder's paths replaced by where each file came from.
    func explain(_ text: String) -> String {
        var explained = text
        for (written, origin) in origins.sorted(by: { $0.key.count > $1.key.count }) {
            explained = explained.replacingOccurrences(of: written, with: origin)
        }
        return explained.replacingOccurrences(of: path + "/", with: "")
    }

    private func write(_ bytes: Data, to relative: String, origin: String) throws {
        let target = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: target))
        origins[target] = origin
    }

    /// Every `.json` file under `folder` (at most 1 000, each at most the size the loaders allow
    /// anyway), at its relative path.
    private func copy(_ folder: String) throws {
        let root = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        var count = 0
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".json") else { continue }
            count += 1
            guard count <= 1_000 else { throw MappingsFolderError.tooManyFiles(root) }
            guard let bytes = FileManager.default.contents(atPath: root + "/" + relative) else { continue }
            try write(bytes, to: relative, origin: root + "/" + relative)
        }
    }
}

/// Why the mappings could not be made ready; the text says what to do.
enum MappingsFolderError: Error, CustomStringConvertible {
    case noFolder(String)
    case cannotWrite(String, String)
    case tooManyFiles(String)

    var description: String {
        switch self {
        case .noFolder(let folder):
            "mappings folder '\(folder)' does not exist; give a folder of .json files that add to or replace the "
                + "embedded catalog's (catalog/, sources/, cloud/, generic/), or give none (the embedded catalog alone)"
        case .cannotWrite(let folder, let reason):
            "cannot prepare the mappings in \(folder): \(reason); set TMPDIR to a writable folder"
        case .tooManyFiles(let folder):
            "mappings folder '\(folder)' has more than 1000 .json files; is it the right one?"
        }
    }
}
