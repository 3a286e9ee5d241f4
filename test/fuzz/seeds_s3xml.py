#!/usr/bin/env python3
"""Seeds of fuzz_s3xml: the XML answers an S3 server (the tests' Ceph radosgw, or AWS) sends
the S3 store, in the shapes of the S3 API reference: ListObjectsV2 pages (keys, common
prefixes, truncated pages with continuation tokens, with and without S3's namespace),
error documents (with Region or Endpoint for a wrong region), multipart upload answers
(InitiateMultipartUploadResult, CompleteMultipartUploadResult, an error after a 200),
CopyObjectResult and DeleteObjects' DeleteResult. Documents in one seed are separated by
NUL bytes (fuzz_s3xml's input format: the pages of one listing, in turn).
    test/fuzz/seeds_s3xml.py OUT_DIR
Then minimise into the corpus:
    build-fuzz/test/fuzz/fuzz_s3xml -merge=1 test/fuzz/corpus/s3xml OUT_DIR"""
import os
import sys

NS = ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def contents(key, size):
    return (f"<Contents><Key>{key}</Key><LastModified>2024-05-01T12:00:00.000Z</LastModified>"
            f'<ETag>"d41d8cd98f00b204e9800998ecf8427e"</ETag><Size>{size}</Size>'
            "<StorageClass>STANDARD</StorageClass>"
            "<Owner><ID>tester</ID><DisplayName>tester</DisplayName></Owner></Contents>")


def listing(prefix, keys=(), prefixes=(), token=None, next_token=None, ns=NS, delimiter="/"):
    s = f"{DECL}<ListBucketResult{ns}><Name>nczarr-test</Name><Prefix>{prefix}</Prefix>"
    if token:
        s += f"<ContinuationToken>{token}</ContinuationToken>"
    s += f"<KeyCount>{len(keys) + len(prefixes)}</KeyCount><MaxKeys>1000</MaxKeys>"
    if delimiter:
        s += f"<Delimiter>{delimiter}</Delimiter>"
    s += f"<IsTruncated>{'true' if next_token else 'false'}</IsTruncated>"
    if next_token:
        s += f"<NextContinuationToken>{next_token}</NextContinuationToken>"
    s += "".join(contents(k, n) for k, n in keys)
    s += "".join(f"<CommonPrefixes><Prefix>{p}</Prefix></CommonPrefixes>" for p in prefixes)
    return s + "</ListBucketResult>"


def error(code, msg, extra=""):
    return (f"{DECL}<Error><Code>{code}</Code><Message>{msg}</Message>{extra}"
            "<RequestId>tx000001-0066320000-1000-default</RequestId><HostId>1000-default-default</HostId>"
            "</Error>")


root = "fuzz/store/"
seeds = {
    "list-root": listing(root, [(root + ".zgroup", 24), (root + ".zattrs", 2)], [root + "g/", root + "temp/"]),
    "list-v3": listing(root, [(root + "zarr.json", 1617)], [root + "types/"], ns=""),
    "list-pages": "\0".join([
        listing(root + "temp/", [(root + "temp/.zarray", 300), (root + "temp/0.0", 4096)],
                next_token="1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="),
        listing(root + "temp/", [(root + "temp/0.1", 4096), (root + "temp/1.0", 12)],
                token="1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", next_token="page+3&x=%2F"),
        listing(root + "temp/", [(root + "temp/1.1", 7)], token="page+3&x=%2F"),
    ]),
    "list-deep": listing(root, [(root + "a/b/c/d/e/f/c/0/0/0", 1 << 40)], delimiter=""),
    "list-escaped": listing(root, [(root + "a&amp;b/&lt;x&gt;", 3), (root + "caf&#233;/&#x4e2d;", 5),
                                   (root + "sp ace/.zarray", 1)],
                            [root + "&quot;q&quot;/", root + "<![CDATA[c<d]]>/"]),
    "list-empty": listing(root),
    "list-bad-truncated": listing(root, [(root + "x", 1)]).replace(
        "<IsTruncated>false", "<IsTruncated>true"),
    "list-marker": listing(root, [(root + "g/", 0), (root + "g/.zgroup", 24)]),
    "err-nosuchkey": error("NoSuchKey", "The specified key does not exist.", f"<Key>{root}.zmetadata</Key>"),
    "err-nosuchbucket": error("NoSuchBucket", "", "<BucketName>nczarr-test</BucketName>"),
    "err-region": error("AuthorizationHeaderMalformed",
                        "The authorization header is malformed; the region 'us-east-1' is wrong",
                        "<Region>eu-west-1</Region>"),
    "err-redirect": error("PermanentRedirect", "The bucket you are attempting to access must be addressed "
                          "using the specified endpoint.",
                          "<Endpoint>nczarr-test.s3.eu-west-1.amazonaws.com</Endpoint>"
                          "<Bucket>nczarr-test</Bucket>"),
    "err-denied": error("AccessDenied", "Access Denied"),
    "err-slowdown": error("SlowDown", "Please reduce your request rate."),
    "err-signature": error("SignatureDoesNotMatch", "The request signature we calculated does not match the "
                           "signature you provided. Check your key and signing method.",
                           "<AWSAccessKeyId>AKIAEXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n"
                           "20240501T120000Z</StringToSign>"),
    "mpu-initiate": (f"{DECL}<InitiateMultipartUploadResult{NS}><Bucket>nczarr-test</Bucket>"
                     f"<Key>{root}big/0.0</Key>"
                     "<UploadId>2~iCw_lDY8VoNYWsXvMr3U4GTdHlWyDQI</UploadId></InitiateMultipartUploadResult>"),
    "mpu-initiate-empty": (f"{DECL}<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
                           "<UploadId></UploadId></InitiateMultipartUploadResult>"),
    "mpu-complete": (f"{DECL}<CompleteMultipartUploadResult{NS}>"
                     f"<Location>http://localhost:8000/nczarr-test/{root}big/0.0</Location>"
                     f"<Bucket>nczarr-test</Bucket><Key>{root}big/0.0</Key>"
                     '<ETag>"3858f62230ac3c915f300c664312c11f-9"</ETag></CompleteMultipartUploadResult>'),
    # a completion that fails after its 200: the error follows whitespace the server sent
    # while it worked
    "mpu-complete-error": "\n\n\n" + error("InternalError", "We encountered an internal error. Please try again."),
    "copy-result": (f"{DECL}<CopyObjectResult{NS}><LastModified>2024-05-01T12:00:00.000Z</LastModified>"
                    '<ETag>"9b2cf535f27731c974343645a3985328"</ETag></CopyObjectResult>'),
    "delete-ok": f"{DECL}<DeleteResult{NS}></DeleteResult>",
    "delete-errors": (f"{DECL}<DeleteResult{NS}><Deleted><Key>{root}a</Key></Deleted>"
                      f"<Error><Key>{root}b</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
                      f"<Error><Key>{root}c&amp;d</Key><Code>InternalError</Code><Message>x</Message></Error>"
                      "</DeleteResult>"),
    "doctype": ('<?xml version="1.0"?><!DOCTYPE Error [<!ENTITY e "entity text">]>'
                "<Error><Code>&e;</Code><Message>&e;&e;</Message></Error>"),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, doc in seeds.items():
        with open(os.path.join(out, name + ".xml"), "wb") as f:
            f.write(doc.encode())
    # every document of one kind after another: a listing of many pages, one of each answer
    with open(os.path.join(out, "all.xml"), "wb") as f:
        f.write("\0".join(seeds.values()).encode())
    print(f"seeds_s3xml: {len(seeds) + 1} seeds in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
