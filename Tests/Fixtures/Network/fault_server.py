#!/usr/bin/env python3
"""HTTP server for ReleaseNetwork's fault tests. Standard library only.

Listens on 127.0.0.1 on a free port, prints the port on the first line of stdout once it
accepts connections, and exits when its stdin closes (so it never outlives the test process).

Routes (GET, HEAD, PUT, DELETE):
  /fail/<status>/<times>/<token>  answers <status> the first <times> requests for this exact
                                  path, then 200 with body "ok" (use a fresh token per test)
  /status/<status>                always answers <status>, with an S3-style error document
  /echo                           200, JSON: method, request headers, body length and SHA-256
  /bytes/<count>                  200 with <count> bytes ("0123456789" repeated)
  /truncated                      promises 1000 bytes, sends 100, closes the connection
  /redirect?to=<url>              302 to <url>
  /endless/<status>/<token>       <status> with a chunked body of up to 64 MiB, in 64 KiB
                                  chunks, as long as the client reads; counts what it sent
  /sent/<token>                   200, the number of body bytes /endless/.../<token> has sent
  /sized/<count>/<mode>/...       200 with <count> bytes, announced (mode "length") or
                                  chunked (mode "chunked"); any path may follow
"""
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

failures_served = {}
failures_lock = threading.Lock()
# /endless: body bytes sent per token.
sent_bytes = {}
ENDLESS_LIMIT = 64 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.route()

    def do_HEAD(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        digest = hashlib.sha256()
        remaining = length
        while remaining > 0:
            block = self.rfile.read(min(remaining, 1 << 16))
            if not block:
                break
            digest.update(block)
            remaining -= len(block)
        return length - remaining, digest.hexdigest()

    def answer(self, status, body=b"", content_type="text/plain", extra_headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra_headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route(self):
        body_length, body_sha256 = self.read_body()
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if parts[0] == "fail" and len(parts) == 4:
            status, times = int(parts[1]), int(parts[2])
            with failures_lock:
                served = failures_served.get(url.path, 0)
                failures_served[url.path] = served + 1
            if served < times:
                self.answer(status, b"failure %d of %d" % (served + 1, times))
            else:
                self.answer(200, b"ok")
        elif parts[0] == "status" and len(parts) == 2:
            document = (
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>Planted</Code>"
                "<Message>status %s as asked</Message></Error>" % parts[1]
            )
            self.answer(int(parts[1]), document.encode(), "application/xml")
        elif parts[0] == "echo":
            report = {
                "method": self.command,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "bodyLength": body_length,
                "bodySHA256": body_sha256,
            }
            self.answer(200, json.dumps(report).encode(), "application/json")
        elif parts[0] == "bytes" and len(parts) == 2:
            count = int(parts[1])
            self.answer(200, (b"0123456789" * (count // 10 + 1))[:count], "application/octet-stream")
        elif parts[0] == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"x" * 100)
            self.wfile.flush()
            self.close_connection = True
        elif parts[0] == "endless" and len(parts) == 3:
            self.send_response(int(parts[1]))
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"x" * 65536
            sent = 0
            try:
                # Bounded: stops at ENDLESS_LIMIT even if the client reads on.
                while sent < ENDLESS_LIMIT:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    sent += len(chunk)
                    with failures_lock:
                        sent_bytes[parts[2]] = sent
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            self.close_connection = True
        elif parts[0] == "sent" and len(parts) == 2:
            with failures_lock:
                count = sent_bytes.get(parts[1], 0)
            self.answer(200, str(count).encode())
        elif parts[0] == "sized" and len(parts) >= 3:
            count = int(parts[1])
            body = (b"0123456789" * (count // 10 + 1))[:count]
            if parts[2] == "length":
                self.answer(200, body, "application/octet-stream")
            else:
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for start in range(0, count, 65536):
                        block = body[start:start + 65536]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass
                self.close_connection = True
        elif parts[0] == "redirect":
            target = parse_qs(url.query).get("to", [""])[0]
            self.answer(302, extra_headers=[("Location", target)])
        else:
            self.answer(404, b"no such route")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
