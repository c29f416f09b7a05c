#!/usr/bin/env python3
"""A camera's WebRTC endpoint as go2rtc serves it, on aiortc (a real WebRTC stack), for the tests
and the demo: `POST /api/webrtc?src=<stream>` with an SDP offer (application/sdp) answers the SDP
answer (201, with the session's resource in Location, WHEP's shape); `DELETE` on that resource ends
the session's media. It streams generated video (a moving gradient, 320x240 at 15 fps) and, when
the offer asks for it, takes talkback audio.

Run it only inside a network namespace (scripts/sandbox.sh): ICE gathers on every interface it
sees, and it is given no ICE servers (aiortc's default would name a public STUN server).

Usage: camera-peer.py --host ADDRESS --port PORT [--stream NAME ...] [--max-sessions 100]
Prints "listening on http://ADDRESS:PORT" once ready. Bounded: offers of at most 64 KB, at most
--max-sessions sessions at once (a 503 beyond), each closed after 20 minutes.
"""
import argparse, asyncio, fractions, itertools, json, sys, time

from aiohttp import web
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription, VideoStreamTrack
from av import VideoFrame


class Pattern(VideoStreamTrack):
    """320x240 frames (YUV 4:2:0) whose gradient moves each frame; 64 frames' planes made once."""

    def __init__(self):
        super().__init__()
        self.count = 0
        self.lumas = {}

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        self.count += 1
        frame = VideoFrame(320, 240, "yuv420p")
        luma, blue, red = frame.planes
        shift = self.count % 64
        if shift not in self.lumas:
            row = bytes((x + shift * 4) % 256 for x in range(luma.line_size))
            self.lumas[shift] = row * (luma.buffer_size // len(row))
        luma.update(self.lumas[shift])
        blue.update(bytes([128]) * blue.buffer_size)
        red.update(bytes([96]) * red.buffer_size)
        frame.pts, frame.time_base = pts, time_base
        return frame


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stream", action="append", default=[])
    parser.add_argument("--max-sessions", type=int, default=100)
    args = parser.parse_args()
    sessions = {}
    numbers = itertools.count(1)
    talkback = {"packets": 0}

    async def offer(request):
        stream = request.query.get("src", "")
        if args.stream and stream not in args.stream:
            return web.Response(status=404, text=f"no stream {stream!r}")
        body = await request.content.read(65537)
        if len(body) > 65536 or not body.startswith(b"v=0"):
            return web.Response(status=400, text="expected an SDP offer of at most 64 KB")
        if len(sessions) >= args.max_sessions:
            return web.Response(status=503, text="too many sessions")
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        number = next(numbers)
        sessions[number] = pc

        @pc.on("track")
        def on_track(track):
            if track.kind == "audio":
                async def drain():
                    while True:
                        try:
                            await track.recv()
                        except Exception:
                            return
                        talkback["packets"] += 1
                asyncio.ensure_future(drain())

        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=body.decode(), type="offer"))
            for transceiver in pc.getTransceivers():
                if transceiver.kind == "video":
                    transceiver.sender.replaceTrack(Pattern())
                    transceiver.direction = "sendonly"
            await pc.setLocalDescription(await pc.createAnswer())
        except Exception as error:
            sessions.pop(number, None)
            await pc.close()
            return web.Response(status=400, text=f"the offer does not negotiate: {error}")
        asyncio.get_running_loop().call_later(1200, lambda: asyncio.ensure_future(end(number)))
        return web.Response(status=201, text=pc.localDescription.sdp, content_type="application/sdp",
                            headers={"Location": f"/api/webrtc/session/{number}"})

    async def end(number):
        pc = sessions.pop(number, None)
        if pc:
            await pc.close()

    async def delete(request):
        number = int(request.match_info["number"])
        if number not in sessions:
            return web.Response(status=404)
        await end(number)
        return web.Response(status=204)

    async def stats(request):
        return web.json_response({"sessions": len(sessions), "talkbackPackets": talkback["packets"]})

    app = web.Application(client_max_size=65536 + 1024)
    app.add_routes([web.post("/api/webrtc", offer), web.delete("/api/webrtc/session/{number:[0-9]+}", delete),
                    web.get("/api/stats", stats)])

    async def start():
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, args.host, args.port).start()
        print(f"listening on http://{args.host}:{args.port}", flush=True)
        while True:
            await asyncio.sleep(3600)

    asyncio.run(start())


if __name__ == "__main__":
    main()
