#!/usr/bin/env python3
"""A live view viewer on aiortc (a real WebRTC stack), for the tests and `traitbridge camera live`:
it makes an SDP offer (video to receive; with --talkback, audio to send), writes it to OFFER_FILE,
waits for the answer in ANSWER_FILE (written by whoever relays it: the bridge's answer), connects,
and counts the decoded video frames until --seconds pass or STOP_FILE appears.

Run it only inside a network namespace (scripts/sandbox.sh): it is given no ICE servers.

Usage: camera-viewer.py OFFER_FILE ANSWER_FILE [--seconds 5] [--stop-file PATH] [--talkback] [--answer-within 180]
Prints one JSON line: {"frames", "fps", "firstFrameSeconds" (from the answer), "firstFrameAt" (the
wall clock, for a benchmark's start-to-frame time), "ended"} and exits 0
when at least one frame came, 1 otherwise (2 when no answer came within --answer-within seconds: a loaded
test machine's signalling took over a minute).
"""
import argparse, asyncio, json, os, sys, time

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError


async def run(args):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver("video", direction="recvonly")
    if args.talkback:
        pc.addTrack(AudioStreamTrack())
    video = asyncio.get_running_loop().create_future()

    @pc.on("track")
    def on_track(track):
        if track.kind == "video" and not video.done():
            video.set_result(track)

    await pc.setLocalDescription(await pc.createOffer())
    with open(args.offer + ".part", "w") as out:
        out.write(pc.localDescription.sdp)
    os.replace(args.offer + ".part", args.offer)
    deadline = time.monotonic() + args.answer_within
    while not os.path.exists(args.answer):
        if time.monotonic() > deadline:
            print(json.dumps({"error": f"no answer within {args.answer_within} s"}))
            return 2
        await asyncio.sleep(0.02)
    with open(args.answer) as answer:
        sdp = answer.read()
    answered = time.monotonic()
    await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="answer"))
    frames, first, first_at, ended = 0, None, None, False
    end = answered + args.seconds
    try:
        track = await asyncio.wait_for(video, timeout=max(0.1, end - time.monotonic()))
        while time.monotonic() < end and not (args.stop_file and os.path.exists(args.stop_file)):
            try:
                await asyncio.wait_for(track.recv(), timeout=max(0.05, min(2, end - time.monotonic())))
            except asyncio.TimeoutError:
                if frames:
                    ended = True  # frames stopped coming
                    break
                continue
            except MediaStreamError:
                ended = True
                break
            frames += 1
            if first is None:
                first = time.monotonic() - answered
                first_at = time.time()
    except asyncio.TimeoutError:
        pass
    seconds = time.monotonic() - answered
    print(json.dumps({"frames": frames, "fps": round(frames / seconds, 2) if seconds > 0 else 0,
                      "firstFrameSeconds": round(first, 3) if first is not None else None,
                      "firstFrameAt": first_at, "ended": ended}))
    await pc.close()
    return 0 if frames else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("offer")
    parser.add_argument("answer")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--stop-file")
    parser.add_argument("--talkback", action="store_true")
    parser.add_argument("--answer-within", type=float, default=180)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
