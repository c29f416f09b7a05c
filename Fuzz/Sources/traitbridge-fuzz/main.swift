import Foundation
import TraitBridgeFuzzing

// The fuzz binary: picks a target from TRAITBRIDGE_FUZZ_TARGET and hands libFuzzer's own driver
// (LLVMFuzzerRunDriver: every libFuzzer option works) a callback that runs it. With
// TRAITBRIDGE_FUZZ_WRITE_SEEDS=<folder> it writes the target's seeds there instead and exits
// (scripts/fuzz.sh does this before each run).

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

let environment = ProcessInfo.processInfo.environment
guard let name = environment["TRAITBRIDGE_FUZZ_TARGET"], let chosen = FuzzTarget(rawValue: name) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("set TRAITBRIDGE_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
}
if let folder = environment["TRAITBRIDGE_FUZZ_WRITE_SEEDS"] {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let seeds = FuzzSeeds.seeds(for: chosen)
    for (index, seed) in seeds.enumerated() {
        FileManager.default.createFile(atPath: folder + "/seed-\(index)", contents: Data(seed))
    }
    print("wrote \(seeds.count) seeds of \(name) to \(folder)")
    exit(0)
}

nonisolated(unsafe) var selected = chosen

/// libFuzzer's per-input callback (also the symbol its runtime expects to find).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selected.run(bytes)
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(withUnsafeMutablePointer(to: &argv) { runDriver(&argc, $0, testOneInput) })
