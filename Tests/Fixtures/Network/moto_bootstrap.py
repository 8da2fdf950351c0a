#!/usr/bin/env python3
"""Gives a moto_server that checks signatures (INITIAL_NO_AUTH_ACTION_COUNT=0) an IAM user
allowed s3:*, and prints its access key id and secret, separated by a space.

moto accepts only keys of IAM users it knows once authentication is on, so the user is made
inside a window of exactly three unauthenticated actions, opened through moto's own
/moto-api/reset-auth and closed by those three calls. Inside the window signatures are not
checked, but moto routes a request to IAM by the credential scope of its Authorization
header, so that header is present. Standard library only.

Usage: moto_bootstrap.py http://127.0.0.1:PORT
"""
import json
import re
import sys
import urllib.parse
import urllib.request

endpoint = sys.argv[1].rstrip("/")


def post(path, body, headers):
    request = urllib.request.Request(endpoint + path, data=body.encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def iam(action, **parameters):
    form = urllib.parse.urlencode(dict(Action=action, Version="2010-05-08", **parameters))
    scope = "AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/iam/aws4_request"
    return post("/", form, {
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "AWS4-HMAC-SHA256 Credential=%s, SignedHeaders=host, Signature=0" % scope,
    })


post("/moto-api/reset-auth", "3", {"Content-Type": "text/plain"})
iam("CreateUser", UserName="release")
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
iam("PutUserPolicy", UserName="release", PolicyName="s3", PolicyDocument=json.dumps(policy))
created = iam("CreateAccessKey", UserName="release")
key_id = re.search(r"<AccessKeyId>([^<]+)</AccessKeyId>", created).group(1)
secret = re.search(r"<SecretAccessKey>([^<]+)</SecretAccessKey>", created).group(1)
print(key_id, secret)
