"""Where a number comes from: the tool's version, git commit, Python version.

``git_state`` asks git about the folder the tools live in; outside a git
checkout (a tarball, an auditor's copy) it returns ``(None, None)`` rather than
guessing.
"""

import os
import platform
import subprocess


TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git_state(folder=TOOLS_DIR):
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
