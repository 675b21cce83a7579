"""The intake prompt's policy section, quoted from evals/ai/EXTRACTION_POLICY.md.

The gold labels follow the extraction policy; a prompt that paraphrases it
drifts from it (intake-v1 told the model a jurisdiction was known when
"unambiguous", where the policy keeps neighbourhoods unknown). So from
intake-v2 on, the prompt carries the policy word for word between the lines
``<<<POLICY`` and ``POLICY>>>``: everything in EXTRACTION_POLICY.md above the
comment that begins with MARK, trailing whitespace dropped.

``problem`` says whether a prompt's section and the policy differ (ai_eval.py
refuses to run the intake suite when they do; tests/test_ai_prompt.py fails);
``rewrite`` writes the policy into a prompt (intake_prompt.py). A prompt that
has been used is never rewritten: a changed policy gets a new prompt version,
so the sha256 recorded with a result names the text the model read.
"""

import re

from .. import BadInput

MARK = "<!-- The intake prompt quotes everything above this line"
# The section: the lines between a line "<<<POLICY" and a line "POLICY>>>".
SECTION = re.compile(r"^<<<POLICY\n(.*?)^POLICY>>>$", re.DOTALL | re.MULTILINE)


def quoted_part(policy_text, where="EXTRACTION_POLICY.md"):
    """The part of the policy that the prompt quotes."""
    at = policy_text.find("\n" + MARK)
    if at < 0:
        raise BadInput(f"{where}: no line beginning {MARK!r} ends the part the prompt quotes")
    return policy_text[:at].rstrip()


def _match(prompt_text, where):
    found = SECTION.search(prompt_text)
    if found is None:
        raise BadInput(f"{where}: no policy section between <<<POLICY and POLICY>>> lines")
    return found


def section(prompt_text, where="the prompt"):
    """The policy text a prompt carries (without the newline before POLICY>>>)."""
    text = _match(prompt_text, where).group(1)
    return text[:-1] if text.endswith("\n") else text


def problem(prompt_text, policy_text, prompt_where, policy_where):
    """None when the prompt quotes the policy exactly, else one line saying so."""
    if section(prompt_text, prompt_where) == quoted_part(policy_text, policy_where):
        return None
    return (f"{prompt_where}: its policy section differs from {policy_where}; a changed policy "
            "needs a new prompt version (see 'Changing the policy' there)")


def rewrite(prompt_text, policy_text, where="the prompt"):
    """The prompt with its policy section replaced by the policy's quoted part."""
    found = _match(prompt_text, where)
    return (prompt_text[:found.start(1)] + quoted_part(policy_text) + "\n"
            + prompt_text[found.end(1):])
