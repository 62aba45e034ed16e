#!/usr/bin/env python3
"""A TLS-terminating TCP proxy for tests (standard library only).

Usage: tls_proxy.py CERT KEY UPSTREAM_PORT [LOG]

Accepts TLS on 127.0.0.1 (a free port, printed as "listening PORT" on stdout) with CERT/KEY and forwards
the plaintext both ways to 127.0.0.1:UPSTREAM_PORT, e.g. the reference bridge (HTTP), so its REST routes and
events WebSocket are reached over HTTPS/WSS. Handshake failures (a client that does not trust CERT) just
close that connection. With LOG, the first line of each connection's plaintext (e.g. "POST /api/v1/call
HTTP/1.1", "GET /api/v1/call/ID/events HTTP/1.1") is appended to that file, so a test can tell which
requests went through TLS; nothing else of the plaintext (headers with tokens) is written. Runs until killed.
"""
import asyncio
import ssl
import sys


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    finally:
        try:
            writer.close()
        except (ConnectionError, ssl.SSLError, OSError):
            pass


async def handle(client_reader, client_writer, upstream_port, log):
    try:
        first = await client_reader.readline()
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
    except (ConnectionError, ssl.SSLError, OSError):
        client_writer.close()
        return
    if log and first:
        with open(log, "a") as file:
            file.write(first.decode("latin-1").rstrip("\r\n") + "\n")
    upstream_writer.write(first)
    await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))


async def main():
    cert, key, upstream_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    log = sys.argv[4] if len(sys.argv) > 4 else None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = await asyncio.start_server(
        lambda r, w: handle(r, w, upstream_port, log), "127.0.0.1", 0, ssl=context)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
