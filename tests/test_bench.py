"""The speed benchmark's stand-in server: a real HTTP/1.1 server in its own
process that answers every request after the fixed delay, on one kept-alive
connection or one per request, and stops when the bench lets go of it."""

import http.client
import os
import sys
import tempfile
import time
import unittest

from tests.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench  # noqa: E402


class StandIn(unittest.TestCase):
    def test_answers_after_the_delay_kept_alive_or_not(self):
        with tempfile.TemporaryDirectory() as tmp:
            server = bench.StandIn(tmp, b'{"answer": "fixed"}')
            try:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
                for headers in ({}, {}, {"Connection": "close"}):
                    start = time.monotonic()
                    conn.request("POST", "/api/query", body=b'{"question": "q"}', headers=headers)
                    resp = conn.getresponse()
                    self.assertEqual((resp.status, resp.read()), (200, b'{"answer": "fixed"}'))
                    self.assertGreaterEqual(time.monotonic() - start, 0.05)
                self.assertTrue(resp.will_close)
                conn.close()
            finally:
                server.close()
            self.assertEqual(server.proc.returncode, 0)


if __name__ == "__main__":
    unittest.main()
