#!/usr/bin/env python3
"""A read-only "CDN" in front of one S3 bucket prefix, for the over-the-air end-to-end test
against moto_server with signatures checked: devices GET /<key> without credentials, as from a
CDN, and each request goes on to the bucket signed (SigV4 by botocore, with the keys from the
AWS_* variables), so moto checks a signature on every read too.

Usage: signing_proxy.py <endpoint> <bucket> <prefix>

Listens on 127.0.0.1 on a free port and prints the port on the first line of stdout. GET and
HEAD of /<key> answer with the status and body of s3://<bucket>/<prefix>/<key>. Exits when
stdin closes. Needs boto3 (installed with moto).
"""
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, bucket, prefix = sys.argv[1], sys.argv[2], sys.argv[3].strip("/")
client = boto3.client(
    "s3", endpoint_url=endpoint, region_name="us-east-1",
    config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))


class Handler(BaseHTTPRequestHandler):
    def relay(self, method):
        key = (prefix + "/" if prefix else "") + self.path.lstrip("/").split("?", 1)[0]
        # A signed request (the Authorization header; moto does not take presigned URLs when
        # it checks signatures), as botocore makes it.
        try:
            if method == "GET":
                answer = client.get_object(Bucket=bucket, Key=key)
                status, body = 200, answer["Body"].read()
            else:
                client.head_object(Bucket=bucket, Key=key)
                status, body = 200, b""
        except ClientError as error:
            status, body = error.response["ResponseMetadata"]["HTTPStatusCode"], b""
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if method == "GET":
            self.wfile.write(body)

    def do_GET(self):
        self.relay("GET")

    def do_HEAD(self):
        self.relay("HEAD")

    def log_message(self, format, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
for _ in sys.stdin:
    pass
server.shutdown()
