#!/usr/bin/env python3
"""Seeds of fuzz_url: the store names and connector info strings the tests and the docs use
(test/unit/test_zmap.c, test/interop/*.sh, docs/*.md, README), each seed
    <store name>\\n<connector info string>[\\n@@aws\\n<AWS config file>]
(fuzz_url's input format). Names and info strings are paired round-robin so that every one
of each appears at least once, and some S3 names come with an AWS file naming profiles.
    test/fuzz/seeds_url.py OUT_DIR
Then minimise into the corpus:
    build-fuzz/test/fuzz/fuzz_url -merge=1 test/fuzz/corpus/url OUT_DIR"""
import os
import sys

NAMES = [
    "/tmp/x.zarr", "rel/x.zarr/", "out.zarr", "/data/sample.nczarr.zip", "/data/UPPER.ZIP", "/tmp/odd#name",
    "/tmp/plain#mode=nczarr,zip", "/tmp/x#mode=nczarr,s3",
    "file:///tmp/x.zarr#mode=nczarr,file", "file:///tmp/x.zip#mode=nczarr,zip",
    "file:///tmp/x.zip#mode=nczarr,file", "file:///tmp/my%20data.zarr#mode=zarr,file,noxarray",
    "file://localhost/tmp/x.zarr", "FILE:///tmp/x.zarr#log&mode=nczarr,file&show=fetch",
    "file:///tmp/x#mode=file,zip", "file:///tmp/bad%zzname", "file:///tmp/nul%00name", "file://",
    "file:///abs/out.zarr#mode=nczarr,file&mode=v3,consolidated",
    "s3://bucket/root", "s3://bucket/root#mode=nczarr,s3", "s3://bkt/k#mode=nczarr,s3&aws.region=eu-north-1",
    "s3://bucket/root#mode=nczarr,s3&AWS.PROFILE=lab&aws.region=eu-west-1", "s3://bucket/root#awsprofile=p2",
    "s3://my.dotted.bucket/a#mode=nczarr,s3", "s3://bkt%2Fx/a%20b/c%2Bd", "s3://b/k#aws.region=%zz",
    "https://host:9000/bucket/root#mode=nczarr,s3", "https://host/bucket/root",
    "https://host/bucket/root#mode=nczarr,file", "http://127.0.0.1:9000/bkt/a%20b/c+d#mode=nczarr,s3",
    "http://127.0.0.1:1/b/k?x=1#mode=nczarr,s3", "http://user:pw@127.0.0.1:1/b/k#mode=nczarr,s3",
    "https://bucket.s3.eu-west-1.amazonaws.com/prefix#mode=nczarr,s3",
    "https://s3.ap-south-1.amazonaws.com/bkt/a/b#mode=nczarr,s3", "https://mybkt.s3.amazonaws.com/r#mode=s3",
    "http://[::1]:9000/bkt/root#mode=nczarr,s3", "ftp://host/x", "",
]
INFOS = [
    "", "nczarr", "mode=zarr", "mode=zarr consolidated", "noxarray,consolidated", "ascii-json",
    "ignore-zmetadata", "native", "v3", "v3 shards=4", "zip", "zip-root", "zip v3 workers=4",
    "nczarr v3 zip workers=4", "maxstrlen=64", "mode=nczarr;xarray\tv2", "bogus", "connections=lots",
    "endpoint=http://127.0.0.1:9 region=eu-west-1 anonymous", "s3root=http://127.0.0.1:9000/bkt",
    "s3root=https://localhost:9443/bkt/ours cainfo=/etc/ssl/certs/ca.pem", "secret_key=abc123",
    "awsprofile=lab retry_seconds=5 max_keys=2 multipart_threshold=5242880",
    "anonymous=no profile=p2 connections=1024", "Mode=ZARR NoXarray Endpoint=HTTP://X", "shards=0 workers=0",
]
AWS = """[default]
aws_access_key_id = AKIAEXAMPLE
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
region = us-west-2

[profile lab]
region=eu-west-1
endpoint_url = http://127.0.0.1:9000
ca_bundle = /etc/ssl/certs/ca-certificates.crt
s3 =
  max_concurrent_requests = 4
[lab]
aws_access_key_id=LABKEY
aws_secret_access_key=labsecret
aws_session_token=token
# a comment
; another
[p2]
aws_access_key_id = onlyaccess
"""


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = max(len(NAMES), len(INFOS))
    for i in range(n):
        seed = NAMES[i % len(NAMES)] + "\n" + INFOS[i % len(INFOS)]
        with open(os.path.join(out, f"pair-{i:03d}"), "wb") as f:
            f.write(seed.encode())
    for i, name in enumerate(x for x in NAMES if x.startswith("s3://")):
        with open(os.path.join(out, f"aws-{i:03d}"), "wb") as f:
            f.write((name + "\n" + INFOS[i % len(INFOS)] + "\n@@aws\n" + AWS).encode())
    print(f"seeds_url: seeds in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
