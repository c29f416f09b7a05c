import ArgumentParser
import TraitBridgeJSON

/// `traitbridge camera set NAME SETTING=VALUE…`: a camera's settings (its
/// `google.CameraAvStreamManagement` attributes) in one command, each checked against its metadata
/// by the bridge and confirmed when the camera reports it; an enumeration takes its label.
struct CameraSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a camera's settings (night vision, rotation, volume…), confirmed by the camera.",
        discussion: """
            Each SETTING is an attribute of google.CameraAvStreamManagement: nightVision (off, on, auto), \
            imageRotation (0 or 180), speakerVolumeLevel (0…254), microphoneMuted, recordingMicrophoneMuted \
            (true/false), statusLightBrightness (auto, low, medium, high), viewport. A value out of range is refused \
            with the allowed one; a setting the camera's source does not carry is refused as notSupported.

            Examples:
              traitbridge camera set "Front door" nightVision=auto
              traitbridge camera set "Front door" nightVision=on speakerVolumeLevel=127
            """)

    static let trait = "google.CameraAvStreamManagement"

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Argument(help: "SETTING=VALUE, one or more (e.g. nightVision=auto).")
    var settings: [String]
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !settings.isEmpty else { throw ValidationError("give at least one SETTING=VALUE, e.g. nightVision=auto") }
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw ValidationError("'\(setting)' is not SETTING=VALUE; write e.g. nightVision=auto")
            }
        }
    }

    func run() throws {
        let writes: [JSONValue] = settings.map { setting in
            let equals = setting.firstIndex(of: "=") ?? setting.endIndex
            return [
                "trait": .string(Self.trait), "attribute": .string(String(setting[..<equals])),
                "value": CommandSender.value(String(setting[setting.index(after: equals)...])),
            ]
        }
        try CommandSender.send(
            ["writes": .array(writes)], to: camera, challenge: try ChallengeOptions.parse([]), connection: connection)
    }
}
