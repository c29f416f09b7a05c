import ArgumentParser
import Foundation
import Testing
import TraitBridgeAutomation
import TraitBridgeJSON

@testable import TraitBridgeCLI

/// The README and `docs/` as a user copies from them: every `traitbridge` command in a `sh` block
/// parses as the command line would (options, arguments, validation), every `make` target named
/// exists, every MQTT payload in a `mosquitto_pub`/`mosquitto_rr` line is JSON, every `json` block
/// is JSON, config examples load as `serve --config` loads them and automation examples decode as
/// `automation add` decodes them (marked `<!-- test: config -->`, `<!-- test: config http -->`,
/// `<!-- test: automation -->` on the line before the block), and every relative link and anchor
/// points at something.
@Suite("Docs: examples and links")
struct DocsExamplesTests {
    static let repository = CommandRunner.repository

    /// README.md and every page under docs/, by their path from the repository.
    static let pages: [String] = {
        let docs = ((try? FileManager.default.contentsOfDirectory(atPath: repository + "/docs")) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }()

    static func text(_ page: String) -> String { WatchCommandTests.read(repository + "/" + page) }

    @Test("the README is the front door: under 300 lines, and it links every docs page")
    func frontDoor() {
        let readme = Self.text("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 300)
        for page in Self.pages.dropFirst() where page != "docs/README.md" {
            #expect(readme.contains("](\(page))"), "README links \(page)")
        }
    }

    @Test("every traitbridge command in a sh block parses; make targets exist; MQTT payloads are JSON")
    func shellExamples() throws {
        let makefile = Self.text("Makefile")
        var commands = 0
        for page in Self.pages {
            for block in MarkdownBlocks.fenced(in: Self.text(page)) where block.language == "sh" {
                for (line, words) in ShellWords.commands(in: block) {
                    let place = "\(page):\(line)"
                    switch words.first {
                    case "traitbridge":
                        commands += 1
                        do {
                            _ = try TraitBridgeCommand.parseAsRoot(Array(words.dropFirst()))
                        } catch {
                            let help = TraitBridgeCommand.exitCode(for: error) == .success
                            #expect(
                                help,
                                "\(place): \(words.joined(separator: " ")): \(TraitBridgeCommand.message(for: error))")
                        }
                    case "make":
                        for target in words.dropFirst() where !target.contains("=") && !target.hasPrefix("-") {
                            #expect(makefile.contains("\n\(target):"), "\(place): make \(target): no such target")
                        }
                    case "mosquitto_pub", "mosquitto_rr":
                        let payload = try #require(words.firstIndex(of: "-m").map { words[$0 + 1] }, "\(place)")
                        #expect(throws: Never.self, "\(place): the payload is JSON") {
                            _ = try JSONDocument.parse(payload)
                        }
                    default: continue
                    }
                }
            }
        }
        #expect(commands > 50, "the docs show the command line: \(commands) commands found")
    }

    @Test("every json block is JSON; config examples load as serve loads them; automations decode")
    func jsonExamples() throws {
        var configs = 0
        var automations = 0
        for page in Self.pages {
            for block in MarkdownBlocks.fenced(in: Self.text(page)) where block.language == "json" {
                let place = "\(page):\(block.line)"
                let trimmed = block.text.trimmingCharacters(in: .whitespacesAndNewlines)
                // A fragment of an object ("key": value) is read inside braces.
                let text = trimmed.hasPrefix("\"") ? "{" + trimmed + "}" : trimmed
                let document: JSONDocument
                do { document = try JSONDocument.parse(text) } catch {
                    Issue.record("\(place): not JSON: \(error)")
                    continue
                }
                switch block.mark {
                case "config", "config http":
                    configs += 1
                    let file =
                        block.mark == "config"
                        ? text
                        : #"{"http": {"listen": "127.0.0.1:8080", "#
                            + text.dropFirst().dropLast() + "}}"
                    // The files it names (secrets, tokens) are made under a folder of the test's own.
                    let files = try Self.placeholders(for: file)
                    defer { try? FileManager.default.removeItem(atPath: files.folder) }
                    do { _ = try ServeConfiguration.parse(Array(files.config.utf8), path: place) } catch {
                        Issue.record("\(place): serve would refuse it: \(error)")
                    }
                case "automation":
                    automations += 1
                    do { _ = try AutomationDecoder.decode(document.root, origin: place, now: nil) } catch {
                        Issue.record("\(place): automation add would refuse it: \(error)")
                    }
                case nil: continue
                case let other?: Issue.record("\(place): unknown test mark '\(other)'")
                }
            }
        }
        #expect(configs >= 5 && automations >= 1, "config examples \(configs), automations \(automations)")
    }

    /// `config` with each `/etc/traitbridge/…` path moved into a new folder, where the file is made
    /// (a 32-character secret: tokens and PINs as the examples' settings accept them).
    static func placeholders(for config: String) throws -> (config: String, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-docs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for match in config.matches(of: /"\/etc\/traitbridge\/([^"]+)"/) {
            let path = folder + "/" + match.1
            let secret = match.1.contains("pin") ? "4711" : "docs-example-secret-0123456789abc"
            try Data(secret.utf8).write(to: URL(fileURLWithPath: path))
        }
        return (config.replacingOccurrences(of: "/etc/traitbridge/", with: folder + "/"), folder)
    }

    @Test("every relative link points at a file, and every #anchor at a heading there")
    func links() throws {
        for page in Self.pages {
            let folder = URL(fileURLWithPath: Self.repository + "/" + page).deletingLastPathComponent()
            for link in MarkdownBlocks.links(in: Self.text(page)) where !link.contains("://") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target =
                    parts[0].isEmpty
                    ? URL(fileURLWithPath: Self.repository + "/" + page)
                    : folder.appendingPathComponent(parts[0]).standardized
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page): \(link): no such file")
                if parts.count == 2, target.pathExtension == "md" {
                    let anchors = MarkdownBlocks.anchors(in: WatchCommandTests.read(target.path))
                    #expect(anchors.contains(parts[1]), "\(page): \(link): no heading '\(parts[1])'")
                }
            }
        }
    }
}

/// Fenced blocks, links and heading anchors of a Markdown text (what GitHub renders).
enum MarkdownBlocks {
    struct Block {
        let language: String
        let text: String
        /// The 1-based line of the block's first line of text.
        let line: Int
        /// `<!-- test: MARK -->` on the line before the fence.
        let mark: String?
    }

    static func fenced(in text: String) -> [Block] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = String(line.dropFirst(3))
            let previous = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            let mark = previous.firstMatch(of: /^<!-- test: ([a-z ]+) -->$/).map { String($0.1) }
            var body: [String] = []
            var end = index + 1
            while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append(lines[end])
                end += 1
            }
            blocks.append(Block(language: language, text: body.joined(separator: "\n"), line: index + 2, mark: mark))
            index = end + 1
        }
        return blocks
    }

    /// The targets of `[text](target)` outside code blocks and code spans.
    static func links(in text: String) -> [String] {
        var inCode = false
        var links: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inCode.toggle() }
            guard !inCode else { continue }
            let outsideSpans = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            for match in outsideSpans.matches(of: /\]\(([^)\s]+)\)/) { links.append(String(match.1)) }
        }
        return links
    }

    /// GitHub's anchor for each heading: lower case, punctuation gone, spaces to hyphens.
    static func anchors(in text: String) -> Set<String> {
        var inCode = false
        var anchors: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
            anchors.insert(kept.replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}

/// A `sh` block's commands as words, the way a POSIX shell splits them: quotes, backslashes,
/// `\` at the end of a line continues it, `#` starts a comment, `;`, `&&` and `|` end a command.
enum ShellWords {
    static func commands(in block: MarkdownBlocks.Block) -> [(line: Int, words: [String])] {
        var result: [(Int, [String])] = []
        var words: [String] = []
        var word = ""
        var hasWord = false
        var quote: Character?
        var line = block.line
        var start = line
        var comment = false
        func endWord() {
            if hasWord { words.append(word) }
            word = ""
            hasWord = false
        }
        func endCommand() {
            endWord()
            // A redirection (`> file`, `2>/dev/null`) is the shell's, not the command's.
            var kept: [String] = []
            var skipNext = false
            for word in words {
                if skipNext {
                    skipNext = false
                } else if [">", ">>", "<", "2>"].contains(word) {
                    skipNext = true
                } else if !(word.hasPrefix(">") || word.hasPrefix("2>") || word.hasPrefix("<")) {
                    kept.append(word)
                }
            }
            if !kept.isEmpty { result.append((start, kept)) }
            words = []
        }
        var characters = Array(block.text)
        characters.append("\n")
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if comment {
                if character == "\n" {
                    comment = false
                    endCommand()
                    line += 1
                    start = line
                }
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\", index < characters.count {
                    word.append(characters[index])
                    index += 1
                } else {
                    if character == "\n" { line += 1 }
                    word.append(character)
                }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                hasWord = true
            case "\\" where index < characters.count:
                if characters[index] == "\n" { line += 1 } else { word.append(characters[index]) }
                hasWord = hasWord || characters[index] != "\n"
                index += 1
            case "#" where !hasWord:
                comment = true
            case " ", "\t":
                endWord()
            case "\n":
                endCommand()
                line += 1
                start = line
            case ";", "|":
                endCommand()
                start = line
            case "&" where index < characters.count && characters[index] == "&":
                index += 1
                endCommand()
                start = line
            default:
                word.append(character)
                hasWord = true
            }
        }
        return result
    }
}
