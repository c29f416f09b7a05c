import Foundation
import Testing

/// `traitbridge camera`'s help, exact (what a user reads; change it on purpose).
@Suite("traitbridge camera help")
struct CameraCommandHelpTests {
    static let cameraHelp = """
        OVERVIEW: Start, extend and stop a camera's live view, talk back, turn its
        recording on or off, set it.

        The bridge relays signalling only: a viewer's SDP offer goes to the camera
        (Frigate's go2rtc), its answer comes back with a session id that holds
        liveSessionDurationSeconds unless extended; media flows between the viewer and
        the camera. A camera that does not record refuses live view
        (failedPrecondition). Exit codes: 0 done, 1 refused, 3 broker or bridge not
        reachable, 4 no such device.

        Examples:
          traitbridge camera live "Front door" --offer offer.sdp --answer answer.sdp
          traitbridge camera extend "Front door" live-1764331200000-3
          traitbridge camera record "Front door" off
          traitbridge camera set "Front door" nightVision=auto

        USAGE: traitbridge camera <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          live                    Start a live view: send a viewer's SDP offer, print
                                  the camera's answer and the session.
          extend                  Extend a live view session; prints how long it holds
                                  now.
          stop                    Stop a live view session.
          talkback                Start or stop talking back (two-way audio) on a live
                                  view session.
          record                  Turn a camera's recording on or off (confirmed by the
                                  camera).
          set                     Change a camera's settings (night vision, rotation,
                                  volume…), confirmed by the camera.

          See 'traitbridge help camera <subcommand>' for detailed help.
        """

    @Test("help for camera is exact; every subcommand has its own")
    func help() throws {
        let result = try CommandRunner.run(["camera", "--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == Self.cameraHelp + "\n", "\(result.standardOutput)")
        for subcommand in ["live", "extend", "stop", "talkback", "record", "set"] {
            let sub = try CommandRunner.run(["camera", subcommand, "--help"])
            // Past a line's width the usage line lists [<options>] before the arguments.
            #expect(
                sub.exitCode == 0
                    && (sub.standardOutput.contains("USAGE: traitbridge camera \(subcommand) <camera>")
                        || sub.standardOutput.contains("USAGE: traitbridge camera \(subcommand) [<options>] <camera>")))
        }
        let bad = try CommandRunner.run(["camera", "record", "Front door", "maybe"])
        #expect(bad.exitCode == 2 && bad.standardError.contains("recording is on or off, not 'maybe'"), "\(bad)")
        let noValue = try CommandRunner.run(["camera", "set", "Front door", "nightVision"])
        #expect(noValue.exitCode == 2 && noValue.standardError.contains("is not SETTING=VALUE"), "\(noValue)")
    }
}
