"""AWS Signature Version 4, with hmac and hashlib only.

``sign`` adds ``X-Amz-Date``, ``Authorization`` and, with a session token,
``X-Amz-Security-Token`` to a request's headers. It follows the published
algorithm: a canonical request (method, canonical URI, canonical query,
canonical headers, signed header names, hex sha256 of the payload), a string
to sign (algorithm, time, credential scope, hash of the canonical request),
and a signing key derived by HMAC-SHA256 over date, region, service and
``aws4_request``.

The canonical URI URI-encodes every path segment once more, as every service
but S3 expects: a Bedrock model id ``...v1:0`` travels as ``...v1%3A0`` and is
signed as ``...v1%253A0``. Known-answer tests use the AWS SigV4 test suite.

What it does not do: S3's single encoding, chunked (streaming) payloads, or
presigned URLs.
"""

import hashlib
import hmac
from urllib.parse import quote, urlsplit

ALGORITHM = "AWS4-HMAC-SHA256"


def _hmac(key, text):
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def signing_key(secret_key, date, region, service):
    key = _hmac(("AWS4" + secret_key).encode("utf-8"), date)
    key = _hmac(key, region)
    key = _hmac(key, service)
    return _hmac(key, "aws4_request")


def canonical_uri(path):
    segments = (path or "/").split("/")
    return "/".join(quote(segment, safe="-_.~") for segment in segments) or "/"


def canonical_query(query):
    if not query:
        return ""
    pairs = []
    for part in query.split("&"):
        key, _, value = part.partition("=")
        pairs.append((quote(key, safe="-_.~"), quote(value, safe="-_.~")))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def canonical_request(method, url, headers, body):
    """``(canonical request, signed header names)``; headers are name: value."""
    parts = urlsplit(url)
    folded = {}
    for name, value in headers.items():
        folded[name.strip().lower()] = " ".join(str(value).split())
    names = sorted(folded)
    text = "\n".join([
        method.upper(),
        canonical_uri(parts.path),
        canonical_query(parts.query),
        "".join(f"{name}:{folded[name]}\n" for name in names),
        ";".join(names),
        hashlib.sha256(body or b"").hexdigest(),
    ])
    return text, ";".join(names)


def sign(method, url, headers, body, access_key, secret_key, region, service, amz_date,
         session_token=None, sign_token=True):
    """The headers to send: ``headers`` plus the signature's own.

    ``headers`` must include Host. ``amz_date`` is ``YYYYMMDDTHHMMSSZ``. With
    ``sign_token`` false the session token is added after signing (the suite's
    post-sts-header-after case); Bedrock signs it.
    """
    out = dict(headers)
    out["X-Amz-Date"] = amz_date
    if session_token and sign_token:
        out["X-Amz-Security-Token"] = session_token
    creq, signed = canonical_request(method, url, out, body)
    date = amz_date[:8]
    scope = f"{date}/{region}/{service}/aws4_request"
    to_sign = "\n".join([ALGORITHM, amz_date, scope,
                         hashlib.sha256(creq.encode("utf-8")).hexdigest()])
    signature = hmac.new(signing_key(secret_key, date, region, service),
                         to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    out["Authorization"] = (f"{ALGORITHM} Credential={access_key}/{scope}, "
                            f"SignedHeaders={signed}, Signature={signature}")
    if session_token and not sign_token:
        out["X-Amz-Security-Token"] = session_token
    return out, creq, to_sign
