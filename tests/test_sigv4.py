"""SigV4 known answers.

Expected values are copied from the AWS SigV4 test suite (Apache License 2.0),
as distributed in botocore's tests/unit/auth/aws4_testsuite/. Suite constants:
access key AKIDEXAMPLE, the secret below, region us-east-1, service "service",
time 20150830T123600Z.
"""

import unittest

from tests import support  # noqa: F401
from evalkit.asking.providers.sigv4 import canonical_uri, sign

ACCESS = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
DATE = "20150830T123600Z"
STS_TOKEN = ("AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAe"
             "MicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZam"
             "pKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD"
             "0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==")
SCOPE = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request"
HOST = {"Host": "example.amazonaws.com"}

VECTORS = [
    # name, method, url, extra headers, body, token, sign_token, signed headers, signature
    ("get-vanilla", "GET", "https://example.amazonaws.com/", {}, b"", None, True,
     "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    ("post-vanilla", "POST", "https://example.amazonaws.com/", {}, b"", None, True,
     "host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    ("post-vanilla-query", "POST", "https://example.amazonaws.com/?Param1=value1", {}, b"", None,
     True, "host;x-amz-date", "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
    ("post-x-www-form-urlencoded", "POST", "https://example.amazonaws.com/",
     {"Content-Type": "application/x-www-form-urlencoded"}, b"Param1=value1", None, True,
     "content-type;host;x-amz-date",
     "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
    ("post-header-key-sort", "POST", "https://example.amazonaws.com/", {"My-Header1": "value1"},
     b"", None, True, "host;my-header1;x-amz-date",
     "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
    ("post-sts-header-before", "POST", "https://example.amazonaws.com/", {}, b"", STS_TOKEN, True,
     "host;x-amz-date;x-amz-security-token",
     "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"),
    ("post-sts-header-after", "POST", "https://example.amazonaws.com/", {}, b"", STS_TOKEN, False,
     "host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    ("get-vanilla-with-session-token", "GET", "https://example.amazonaws.com/", {}, b"",
     "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267", True,
     "host;x-amz-date;x-amz-security-token",
     "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"),
]


class Vectors(unittest.TestCase):
    def test_authorization_headers(self):
        for name, method, url, extra, body, token, sign_token, signed, signature in VECTORS:
            with self.subTest(name):
                headers, _creq, _sts = sign(method, url, dict(HOST, **extra), body, ACCESS, SECRET,
                                            "us-east-1", "service", DATE, token, sign_token)
                self.assertEqual(headers["Authorization"],
                                 f"AWS4-HMAC-SHA256 Credential={SCOPE}, SignedHeaders={signed}, "
                                 f"Signature={signature}")
                if token:
                    self.assertEqual(headers["X-Amz-Security-Token"], token)

    def test_canonical_request_and_string_to_sign(self):
        # get-vanilla.creq and get-vanilla.sts
        _headers, creq, sts = sign("GET", "https://example.amazonaws.com/", dict(HOST), b"",
                                   ACCESS, SECRET, "us-east-1", "service", DATE)
        self.assertEqual(creq, "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                               "host;x-amz-date\n"
                               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        self.assertEqual(sts, "AWS4-HMAC-SHA256\n20150830T123600Z\n"
                              "20150830/us-east-1/service/aws4_request\n"
                              "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
        # post-x-www-form-urlencoded.creq: the payload hash
        _h, creq, _s = sign("POST", "https://example.amazonaws.com/",
                            dict(HOST, **{"Content-Type": "application/x-www-form-urlencoded"}),
                            b"Param1=value1", ACCESS, SECRET, "us-east-1", "service", DATE)
        self.assertTrue(creq.endswith(
            "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"))

    def test_bedrock_model_id_is_encoded_twice(self):
        self.assertEqual(canonical_uri("/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"),
                         "/model/anthropic.claude-3-haiku-20240307-v1%253A0/converse")


if __name__ == "__main__":
    unittest.main()
