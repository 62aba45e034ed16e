#!/usr/bin/env python3
"""An HTTP CONNECT proxy for tests (standard library only), as `https_proxy` names one.

Usage: connect_proxy.py LOG [USER:PASSWORD]

Listens on 127.0.0.1 (a free port, printed as "listening PORT" on stdout). For each connection it reads the
request head; a CONNECT to 127.0.0.1 or localhost (never anywhere else) is answered "200 Connection established"
and the bytes are then piped both ways. With USER:PASSWORD, a request without the matching
"Proxy-Authorization: Basic ..." header is answered 407 instead. Anything else gets 403 (any host but the
loopback one) or 405 (any method but CONNECT). Each request line is appended to LOG with the outcome
("CONNECT 127.0.0.1:8443 HTTP/1.1 -> 200"); no header value is written. Runs until killed.
"""
import asyncio
import base64
import sys

from tls_proxy import pipe  # the same byte pump, in the same directory


async def refuse(writer, status, log, line):
    log_line(log, line, status)
    writer.write(f"HTTP/1.1 {status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    writer.close()


def log_line(log, line, status):
    with open(log, "a") as file:
        file.write(f"{line} -> {status}\n")


async def handle(reader, writer, log, credentials):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    line = lines[0]
    headers = {}
    for field in lines[1:]:
        name, _, value = field.partition(":")
        headers[name.strip().lower()] = value.strip()
    parts = line.split(" ")
    if len(parts) != 3 or parts[0] != "CONNECT":
        return await refuse(writer, 405, log, line)
    host, _, port = parts[1].rpartition(":")
    if host not in ("127.0.0.1", "localhost") or not port.isdigit():
        return await refuse(writer, 403, log, line)
    if credentials is not None:
        expected = "Basic " + base64.b64encode(credentials.encode()).decode()
        if headers.get("proxy-authorization") != expected:
            return await refuse(writer, 407, log, line)
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", int(port))
    except OSError:
        return await refuse(writer, 502, log, line)
    log_line(log, line, 200)
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await writer.drain()
    await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))


async def main():
    log = sys.argv[1]
    credentials = sys.argv[2] if len(sys.argv) > 2 else None
    server = await asyncio.start_server(lambda r, w: handle(r, w, log, credentials), "127.0.0.1", 0)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
