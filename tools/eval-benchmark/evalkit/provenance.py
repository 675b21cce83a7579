"""Where a number comes from: the tool's version, git commit, Python version,
and where the model that answered was served.

``git_state`` asks git about the folder the tools live in; outside a git
checkout (a tarball, an auditor's copy) it returns ``(None, None)`` rather than
guessing.

``is_local_host(host)`` reads a host as written, without any lookup (what the
result-file checker can see): an address in any form a connect() takes
(``127.0.0.1``, ``127.1``, ``2130706433``, ``0x7f000001``, ``0.0.0.0``, ``::1``,
``::ffff:127.0.0.1``) that is not a global address (loopback, unspecified,
private, link-local, shared), ``localhost`` and the names that never leave a
machine or its network (``*.localhost``, ``*.local``, ``*.internal``, ``*.lan``,
``*.home.arpa``, ``*.localdomain``), or a name of one label (``ollama``, the
machine's own name): no hosted API has one. ``is_here(url)`` is that, or a name
that resolves (getaddrinfo: the hosts file, then DNS) to such an address or to
one this machine holds (it can bind it: its own public address). ai_eval.py
labels a run whose endpoint is_here a local run, never a hosted one.

``machine_folder_in(text)`` is the home folder or the repository's absolute
path when ``text`` names one: what a published file (a scenario run's folder,
a result of evals/ai/results/) must never hold, checked before it is written.
"""

import ipaddress
import json
import os
import platform
import re
import socket
import subprocess
from urllib.parse import urlsplit

from . import REPO, SCRIPTS_DIR


# Names that never leave a machine or its network (RFC 6761, 6762, 8375, and
# the common private ones).
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".localdomain")
# What inet_aton may read as an IPv4 address: digits, hex digits, 0x, dots.
_NUMERIC = re.compile(r"^[0-9a-fx.]+$")


def git_state(folder=SCRIPTS_DIR):
    """``(commit, dirty)`` of the checkout holding ``folder``."""
    def git(*args):
        return subprocess.run(("git",) + args, cwd=folder, capture_output=True,
                              text=True, timeout=10, check=True).stdout
    try:
        commit = git("rev-parse", "HEAD").strip()
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").strip())
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit or None, dirty


def python_version():
    return platform.python_version()


def host_of(url):
    """The host of a URL in lower case, without brackets or a final dot ('' for none)."""
    try:
        host = urlsplit(str(url)).hostname or ""
    except ValueError:  # a malformed IPv6 literal
        return ""
    return host.rstrip(".")


def literal_address(host):
    """The address a host written as one stands for, as connect() reads it
    (``127.1`` and ``2130706433`` are 127.0.0.1; ``::ffff:127.0.0.1`` is the
    IPv4 address it maps); None for a name."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        if not _NUMERIC.match(host):
            return None
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return getattr(address, "ipv4_mapped", None) or address


def is_local_host(host):
    """True when ``host``, as written, is this machine or a private network
    (see the module's docstring); no lookup."""
    host = host.lower().rstrip(".")
    if not host:
        return False
    address = literal_address(host)
    if address is not None:
        return not address.is_global
    return "." not in host or host.endswith(LOCAL_SUFFIXES)


def is_here(url):
    """True when the endpoint ``url`` is served from this machine or a
    private network: is_local_host, or an address it resolves to is."""
    host = host_of(url)
    if is_local_host(host):
        return True
    address = literal_address(host)
    addresses = [address] if address is not None else resolved(host)
    return any(not a.is_global or _bindable(a) for a in addresses)


def resolved(host):
    """The addresses ``host`` resolves to ([] when it does not): a hosts-file
    or DNS lookup, nothing is sent to the host itself."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    found = (literal_address(info[4][0]) for info in infos)
    return [a for a in found if a is not None]


def _bindable(address):
    """True when this machine holds ``address``: a socket can be bound to it
    (nothing is sent)."""
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.bind((str(address), 0))
    except OSError:
        return False
    return True


def machine_folders():
    """The folders of the running machine that no published file may name:
    the user's home folder and the repository's own absolute path (a model
    id that was a path, a message that quoted one)."""
    home = os.path.expanduser("~")
    folders = {os.path.abspath(REPO)} | ({home} if home not in ("", "~", os.sep) else set())
    return sorted((f for f in folders if len(f) > 1), key=len, reverse=True)


def machine_folder_in(text):
    """The first of machine_folders that ``text`` names, as written or as JSON
    escapes it (a Windows path's backslashes), followed by a separator, a
    quote, white space or the end; None when it names none."""
    for folder in machine_folders():
        for spelling in {folder, json.dumps(folder)[1:-1]}:
            if re.search(re.escape(spelling) + r"(?=[/\\\"'\s]|$)", text):
                return folder
    return None
