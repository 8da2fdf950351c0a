#!/usr/bin/env python3
"""A TCP relay in front of an HTTP server (moto_server) that can make the server look
stopped, for the publishing tests. Standard library only.

Usage: fault_proxy.py <upstream port>

Listens on 127.0.0.1 on a free port and prints the port on the first line of stdout. Each
connection is relayed byte for byte to 127.0.0.1:<upstream port> (so SigV4 signatures, which
cover the Host header, stay valid), unless a fault is armed; then the connection is closed
at once without an answer, as a stopped server would do. The upstream keeps its state.

Commands, one per line on stdin; each is answered with "ok" on stdout once in effect:
  fail-after-puts N   relay N more PUT connections, then drop every connection
  drop N              drop the next N connections, then relay again
  heal                relay everything
  puts                print the request line of every PUT relayed so far, in order, on one
                      line (separated by spaces), before the "ok"
Exits when stdin closes. Each client request uses its own connection (the release tool
opens one per request), so connections and requests correspond one to one.
"""
import socket
import sys
import threading

upstream_port = int(sys.argv[1])
lock = threading.Lock()
state = {"puts_left": None, "drop": 0, "dead": False}
relayed_puts = []


def decide(first_bytes):
    """Whether to relay this connection, given the first bytes the client sent."""
    with lock:
        if state["dead"]:
            return False
        if state["drop"] > 0:
            state["drop"] -= 1
            return False
        if state["puts_left"] is not None and first_bytes.startswith(b"PUT "):
            if state["puts_left"] == 0:
                state["dead"] = True
                return False
            state["puts_left"] -= 1
            if state["puts_left"] == 0:
                # This PUT goes through; every later connection is dropped.
                state["dead"] = True
                state["puts_left"] = None
        if first_bytes.startswith(b"PUT "):
            relayed_puts.append(first_bytes.split(b" ", 2)[1].decode("ascii", "replace"))
        return True


def pump(source, destination):
    try:
        while True:
            block = source.recv(65536)
            if not block:
                break
            destination.sendall(block)
    except OSError:
        pass
    finally:
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def handle(client):
    try:
        first = b""
        client.settimeout(10)
        # The method, and for a PUT its whole request line (for "puts").
        while len(first) < 4 or (first.startswith(b"PUT ") and b"\r\n" not in first and len(first) < 8192):
            block = client.recv(65536)
            if not block:
                return
            first += block
        client.settimeout(None)
        if not decide(first):
            # RST rather than FIN: the client sees the connection fail, as with a dead server.
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            return
        upstream = socket.create_connection(("127.0.0.1", upstream_port), timeout=10)
        upstream.settimeout(None)
        upstream.sendall(first)
        other = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        other.start()
        pump(client, upstream)
        other.join()
        upstream.close()
    except OSError:
        pass
    finally:
        client.close()


def serve(listener):
    while True:
        client, _ = listener.accept()
        threading.Thread(target=handle, args=(client,), daemon=True).start()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener,), daemon=True).start()
    print(listener.getsockname()[1], flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        with lock:
            if words[0] == "fail-after-puts":
                state.update(puts_left=int(words[1]), drop=0, dead=int(words[1]) == 0)
            elif words[0] == "drop":
                state.update(puts_left=None, drop=int(words[1]), dead=False)
            elif words[0] == "heal":
                state.update(puts_left=None, drop=0, dead=False)
            elif words[0] == "puts":
                print(" ".join(relayed_puts), flush=True)
        print("ok", flush=True)


if __name__ == "__main__":
    main()
