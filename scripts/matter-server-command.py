"""Sends commands to a Matter Server's WebSocket and prints each answer: for the tests, the demo
and the simulator (import node dumps, commission a device), in a process of its own.

Usage: python matter-server-command.py URL COMMANDS_FILE ANSWERS_FILE
COMMANDS_FILE holds one JSON command per line, each with its own "message_id"; ANSWERS_FILE gets
one line per command, the server's answer to it (or {"error_code": -1, "details": ...} when the
connection failed or no answer came within 60 s). Exit status 0 when every command was answered.
"""

import asyncio
import json
import sys

import aiohttp


async def run(url, commands):
    answers = []
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, max_msg_size=0) as ws:
            await asyncio.wait_for(ws.receive(), 60)  # the server's info
            for command in commands:
                await ws.send_str(json.dumps(command))
                while True:
                    message = await asyncio.wait_for(ws.receive(), 60)
                    if message.type != aiohttp.WSMsgType.TEXT:
                        raise RuntimeError(f"the server closed the connection ({message.type})")
                    answer = json.loads(message.data)
                    if answer.get("message_id") == command.get("message_id"):
                        answers.append(answer)
                        break
    return answers


def main():
    url, commands_file, answers_file = sys.argv[1:4]
    with open(commands_file) as f:
        commands = [json.loads(line) for line in f if line.strip()]
    try:
        answers = asyncio.run(run(url, commands))
        status = 0
    except Exception as error:  # noqa: BLE001 the caller reads what went wrong from the answers file
        answers = [{"error_code": -1, "details": f"{type(error).__name__}: {error}"}]
        status = 1
    with open(answers_file, "w") as f:
        for answer in answers:
            f.write(json.dumps(answer) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
