"""The errors of the HTTP layer under urllib are told by their class
(evalkit/asking/http.py, ``_describe``): http.client's RemoteDisconnected,
IncompleteRead, InvalidURL and HTTPException, and their subclasses, are
described as what they are; an exception of another module that merely bears
one of their names is not taken for it (issue 41: they were matched by class
name). The real failures behind them are met against real servers in
test_run; here the description alone."""

import http.client
import unittest

from tests import support  # noqa: F401  (puts tools/eval-benchmark on sys.path)
from evalkit.asking import http as asking_http  # noqa: E402


class ByClass(unittest.TestCase):
    def test_http_clients_exceptions_and_their_subclasses(self):
        class Cut(http.client.IncompleteRead):
            pass
        for exc, said in ((http.client.RemoteDisconnected("closed"), "connection closed before a response"),
                          (http.client.IncompleteRead(b"ab", 4), "connection closed in the middle of the body"),
                          (Cut(b"", 1), "connection closed in the middle of the body"),
                          (http.client.InvalidURL("nonnumeric port: 'x'"), "cannot connect: nonnumeric port: 'x'"),
                          (http.client.BadStatusLine("HTTP/9"), "bad HTTP response: BadStatusLine")):
            with self.subTest(exc=type(exc).__name__):
                self.assertEqual(asking_http._describe(exc), said)

    def test_a_namesake_of_another_module_is_not_taken_for_it(self):
        for name in ("RemoteDisconnected", "IncompleteRead", "InvalidURL", "HTTPException"):
            namesake = type(name, (Exception,), {})("what it says")
            with self.subTest(name=name):
                self.assertEqual(asking_http._describe(namesake), f"{name}: what it says")


if __name__ == "__main__":
    unittest.main()
