"""Who answered a run of ai_eval.py, as its result's status says: a model
served on this machine is a local run (``recorded_local_run``) in every form
its address takes (127.1, 2130706433, 0x7f000001, 0.0.0.0, ::ffff:127.0.0.1,
a name in the hosts file, the machine's own address), never a hosted one;
a stand-in says it is one and its run is an example wherever it listens; a
local server that names no model is an example; the model the server names
is recorded (``run.served_model``). Every server here listens on 127.0.0.1;
nothing is asked of any other host (no name but the hosts file's is looked
up)."""

import json
import os
import socket
import struct
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.support import FIXTURES, ROOT, call_main

import ai_eval  # noqa: E402
from evalkit import provenance  # noqa: E402
from evalkit.aieval import resultfile  # noqa: E402

AI = os.path.join(FIXTURES, "ai")
PUBLISHED_INTAKE = os.path.join(ROOT, "evals", "ai", "intake-cases.json")
REPLY = {"project_type": "adu", "jurisdiction": "unknown",
         "fields": {"adu_kind": "unknown", "owner_occupies": "unknown"}}
# A llama.cpp server as it names the file it serves, asked in Ollama's name.
ASKED, GGUF = "qwen2.5-coder:1.5b", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf"
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                   "ALL_PROXY")


def hosts_file_names():
    """Names the hosts file maps to a loopback address, but localhost's
    own (a lookup of them asks no DNS server)."""
    try:
        with open("/etc/hosts", encoding="utf-8") as fh:
            lines = [line.split("#", 1)[0].split() for line in fh]
    except OSError:
        return []
    names = [name for fields in lines if len(fields) > 1 and fields[0].startswith("127.")
             for name in fields[1:]]
    return [n for n in names if n.lower().rstrip(".") not in ("localhost", "localhost.localdomain")]


def own_addresses():
    """This machine's IPv4 addresses but loopback, from its interfaces
    (Linux's SIOCGIFADDR; [] elsewhere): nothing is looked up or sent."""
    try:
        import fcntl
    except ImportError:
        return []
    found = []
    for _index, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
        found.append(socket.inet_ntoa(packed[20:24]))
    return [a for a in found if not a.startswith("127.")]


class Runs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        for var in PROXY_VARIABLES:   # every host here is this machine: never a proxy
            os.environ.pop(var, None)

    def serve(self, flavour="openai", **kw):
        srv = ModelServer(flavour, reply=lambda request: REPLY, **kw)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        return srv

    def run_at(self, host, srv, *extra, model=ASKED, cases=None, provider="openai"):
        """``(code, stderr, result)`` of an intake run of the first two cases
        against ``srv`` called as ``host``."""
        if provider == "openai":
            os.environ["OPENAI_BASE_URL"] = f"http://{host}:{srv.httpd.server_address[1]}/v1"
        out = os.path.join(self.tmp, f"r{len(os.listdir(self.tmp))}.json")
        code, _, err = call_main(ai_eval, [
            "intake", "--cases", cases or os.path.join(AI, "intake-cases.json"), "--output", out,
            "--raw", out[:-5] + ".raw.jsonl", "--provider", provider, "--model", model,
            "--limit", "2"] + list(extra))
        if not os.path.exists(out):
            self.fail(f"no result written (exit {code}): {err}")
        with open(out, encoding="utf-8") as fh:
            return code, err, json.load(fh)

    def reachable(self, host, srv):
        try:
            socket.create_connection((host.strip("[]"), srv.httpd.server_address[1]), timeout=2).close()
        except OSError:
            self.skipTest(f"{host} does not reach 127.0.0.1 on this machine")

    def test_a_model_served_here_is_a_local_run_in_every_form_of_its_address(self):
        srv = self.serve(stand_in=False, served_model=GGUF)
        hosts = ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0.0.0.0",
                 "[::ffff:127.0.0.1]", "localhost"] + hosts_file_names()[:2]
        for host in hosts:
            with self.subTest(host):
                self.reachable(host, srv)
                code, err, result = self.run_at(host, srv, "--quiet")
                self.assertEqual((code, err), (0, ""))
                run = result["run"]
                self.assertEqual((run["status"], run["served_model"], run["served_models"]),
                                 ("recorded_local_run", GGUF, [GGUF]))
                self.assertEqual([c["calls"][0]["served_model"] for c in result["calls"]], [GGUF] * 2)

    def test_a_stand_in_is_an_example_wherever_it_listens(self):
        srv = self.serve()
        for host in ("127.0.0.1", "127.1", "0x7f000001", "localhost"):
            with self.subTest(host):
                _, _, result = self.run_at(host, srv, "--quiet")
                self.assertEqual(result["run"]["status"], "example")
                self.assertEqual(result["run"]["served_model"], ASKED)  # it echoes the name asked
                self.assertTrue(all(c["calls"][0]["stand_in"] for c in result["calls"]))

    def test_a_server_here_that_names_no_model_is_an_example(self):
        # Bedrock's Converse reply names no model.
        self.serve("bedrock", stand_in=False)
        _, _, result = self.run_at("127.0.0.1", None, "--quiet", model="m", provider="bedrock")
        run = result["run"]
        self.assertEqual((run["status"], run["served_model"], run["served_models"]),
                         ("example", None, []))

    def test_a_local_run_of_the_published_cases_passes_the_shape_checks(self):
        srv = self.serve(stand_in=False, served_model=GGUF)
        _, _, result = self.run_at("127.1", srv, "--quiet", cases=PUBLISHED_INTAKE)
        result["run"].update(git_dirty=False)  # others may be editing this checkout
        self.assertEqual(resultfile.problems(result), [])
        self.assertEqual(result["run"]["endpoint"], f"http://127.1:{srv.httpd.server_address[1]}/v1")

    def test_a_server_naming_another_family_is_said_on_stderr(self):
        srv = self.serve(stand_in=False, served_model="gemma-3-270m-it")
        code, err, result = self.run_at("127.0.0.1", srv)
        self.assertEqual(result["run"]["status"], "recorded_local_run")
        said = [line for line in err.splitlines() if "not of the family" in line]
        self.assertEqual(said, [f"ai_eval.py: the server reported the model gemma-3-270m-it, not "
                                f"of the family of --model {ASKED}: evals/ai/results/ refuses this "
                                "result; name the model that answered with --model"])
        result["run"].update(git_dirty=False)
        self.assertIn("the server reported gemma-3-270m-it, not of the family of run.model "
                      f"{ASKED} (qwen25coder): record the model that answered",
                      resultfile.problems(result))

    def test_a_raw_file_of_another_endpoint_is_not_continued(self):
        raw = os.path.join(self.tmp, "shared.raw.jsonl")
        _, _, result = self.run_at("127.0.0.1", self.serve(), "--quiet", "--raw", raw)
        self.assertEqual(result["run"]["status"], "example")
        local = self.serve(stand_in=False, served_model=GGUF)
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{local.httpd.server_address[1]}/v1"
        code, _, err = call_main(ai_eval, [
            "intake", "--cases", os.path.join(AI, "intake-cases.json"), "--raw", raw,
            "--output", os.path.join(self.tmp, "local.json"), "--provider", "openai",
            "--model", ASKED, "--limit", "2", "--quiet"])
        self.assertEqual((code, local.requests), (2, []))
        self.assertEqual(err, f"ai_eval.py: {raw}:1: written for other cases, another model, "
                              "other prompts, other settings or another endpoint; pass another "
                              "--raw\n")


class Addresses(unittest.TestCase):
    """provenance.is_local_host reads a host as written (what the checker
    sees); is_here also resolves a name and asks whether this machine holds
    the address."""

    LOCAL = ("127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.255.0.9",
             "0.0.0.0", "0", "::1", "::", "::ffff:127.0.0.1", "::ffff:7f00:1", "localhost",
             "LOCALHOST", "localhost.", "a.localhost", "ollama", "ollama.local", "llm.internal",
             "nas.lan", "box.home.arpa", "10.1.2.3", "172.16.0.9", "192.168.1.20",
             "169.254.169.254", "100.64.0.1", "fd00::2", "fe80::1")
    HOSTED = ("api.openai.com", "api.anthropic.com", "bedrock-runtime.us-east-1.amazonaws.com",
              "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "local.example.com",
              "cafe.bad")

    def test_as_written(self):
        for host in self.LOCAL:
            with self.subTest(host):
                self.assertTrue(provenance.is_local_host(host))
                written = f"[{host}]" if ":" in host else host
                # as the result checker reads an endpoint (resultfile._endpoint_problems)
                self.assertTrue(provenance.is_local_host(provenance.host_of(
                    f"http://{written}:8/v1")))
        for host in self.HOSTED:
            with self.subTest(host):
                self.assertFalse(provenance.is_local_host(host))

    def test_every_numeric_form_is_the_address_it_reaches(self):
        for host in ("127.1", "2130706433", "0x7f000001", "0177.0.0.1", "::ffff:127.0.0.1"):
            with self.subTest(host):
                self.assertEqual(str(provenance.literal_address(host)), "127.0.0.1")
        self.assertIsNone(provenance.literal_address("api.openai.com"))
        self.assertIsNone(provenance.literal_address("cafe.bad"))

    def test_a_name_is_resolved_from_the_hosts_file(self):
        self.assertIn("127.0.0.1", [str(a) for a in provenance.resolved("localhost")])
        for name in hosts_file_names():
            with self.subTest(name):
                self.assertTrue(provenance.is_here(f"http://{name}:8080/v1"))

    def test_this_machines_own_address_is_here(self):
        addresses = own_addresses()
        if not addresses:
            self.skipTest("no address of this machine's interfaces is readable here")
        for address in addresses:
            with self.subTest(address):
                self.assertTrue(provenance.is_here(f"http://{address}:8080/v1"))

    def test_an_address_this_machine_does_not_hold_is_not_here(self):
        # A global address is looked up nowhere: bind() fails at once.
        self.assertFalse(provenance.is_here("http://8.8.8.8:8080/v1"))
        self.assertTrue(provenance.is_here("http://[::ffff:127.0.0.1]:8080/v1"))


if __name__ == "__main__":
    unittest.main()
