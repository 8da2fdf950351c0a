"""Answers every GET with a 302 to the URL given as its argument; prints its port (127.0.0.1,
chosen by the system) on the first line, then serves until stdin closes."""

import http.server
import sys
import threading


class Redirect(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.send_response(302)
        self.send_header("Location", sys.argv[1])
        self.send_header("Content-Length", "0")
        self.end_headers()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
