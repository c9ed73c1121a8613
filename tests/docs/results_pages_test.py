"""The results pages: a pre-registered protocol stays as it was committed, and every figure of a
page's Results and Corrections is generated from a results file (a `markdown_into` block), so
that no hand-typed figure outlives a rerun."""
import hashlib
import re
import subprocess

import pytest

from srcframework.studies.markdown_into import expected_content, find_blocks
from tests.conftest import ROOT

PAGES = sorted((ROOT / "docs" / "results").glob("*.md"))
# the pages whose Results draw on a results file
GENERATED = [page for page in PAGES if find_blocks(page.read_text(encoding="utf-8"), str(page))]
# the robust-training protocol as committed in 1a42694, before any of its trainings ran
PROTOCOLS = {"robust_training.md": ("1a42694", "58f9a54c2ae46711c8e367ae2dc4e02f74b7610513a110df89c5da880d525b7d")}
# a decimal figure (3.7, -0.6) or a percentage (44.8%, 30 %), not a date or a version
FIGURE = re.compile(r"(?<![\w.-])[-+±]?\d+(?:\.\d+)?\s?%|(?<![\w.-])[-+±]?\d+\.\d+(?![\w.])")
# the levels a design names, not measurements
LEVELS = {"95%", "90%", "80%", "0.05", "0.8"}
CHECKED = ("Results", "Corrections")


def sections(text: str) -> dict:
    """`{H2 title: its text}` (the text before the first H2 under "")."""
    found, title, start = {}, "", 0
    for match in re.finditer(r"^## (.+)$", text, re.MULTILINE):
        found[title] = text[start:match.start()]
        title, start = match.group(1).strip(), match.start()
    found[title] = text[start:]
    return found


def outside_blocks(text: str, path: str = "<page>") -> str:
    """`text` without the contents of its results blocks."""
    kept, position = [], 0
    for block in find_blocks(text, path):
        kept.append(text[position:block.start])
        position = block.end
    return "".join(kept) + text[position:]


def stray_figures(text: str, path: str = "<page>") -> list:
    """The figures of the Results and Corrections sections that stand outside a results block and
    are neither the protocol's own (its margins and bars) nor a design's levels."""
    parts = sections(text)
    allowed = {figure.lstrip("+±") for figure in FIGURE.findall(parts.get("Protocol", ""))} | LEVELS
    stray = []
    for title, body in parts.items():
        if title.startswith(CHECKED):
            stray += [f"{title}: {figure}" for figure in FIGURE.findall(outside_blocks(body, path))
                      if figure.lstrip("+±") not in allowed]
    return stray


def claims_scope(page) -> bool:
    """Whether the prose check (`srcframework.studies.claims`, tests/docs/claims_test.py) holds the
    page's Results: there a figure outside a block must be claimed against its results.json."""
    from srcframework.studies.claims import SCOPE

    return f"docs/results/{page.name}" in SCOPE


@pytest.mark.parametrize("page", GENERATED, ids=lambda p: p.name)
def test_every_figure_of_the_results_sits_inside_a_generated_block(page):
    text = page.read_text(encoding="utf-8")
    assert any(title.startswith(CHECKED) for title in sections(text))
    if claims_scope(page):
        from srcframework.studies.claims import check

        problems = [problem for problem in check() if problem.startswith(f"docs/results/{page.name}")]
        assert problems == []
    else:
        assert stray_figures(text, str(page)) == []


@pytest.mark.parametrize("page", GENERATED, ids=lambda p: p.name)
def test_the_blocks_are_what_their_results_files_give(page):
    text = page.read_text(encoding="utf-8")
    blocks = find_blocks(text, str(page))
    for block in blocks:
        if block.source is None and block.content.strip().startswith("Not yet run here"):
            assert not FIGURE.findall(block.content), f"{block.name}: figures in a block not yet run"
            assert not block.link, f"{block.name}: add link=none (the site's links stay inside docs/)"
            continue  # the study has not run: the block says so, with no figure
        assert block.source, f"{block.name}: a block with no results file on a results page"
        results = (page.parent / block.source).resolve().relative_to(ROOT)
        expected = expected_content(str(results), str(page.relative_to(ROOT)), block.tables, block.link,
                                    block.name if len(blocks) > 1 else None)
        assert block.content == expected, (
            f"{block.name}: run python -m srcframework.studies.markdown_into {results} {page.relative_to(ROOT)} "
            f"--name {block.name}")
        assert not block.link  # the site's links stay inside docs/


def test_the_check_finds_a_hand_typed_figure():
    page = ("## Protocol\n\nMargin ±1.5 F1; a reduction of at least 30%.\n\n## Results\n\n"
            "D = 3.7 [1.8, 5.9], a reduction of 44.8%, above the bar of 30%, at 95% and ±1.5.\n\n"
            "<!-- results:x tables=robustness -->\n| 9.9 |\n<!-- /results:x -->\n\n## Corrections (2026-12-02)\n\n"
            "Over seeds: 0.9 on 2026-12-02 at 08:30, version 2.10.1.\n\n## History\n\n12.5 stays.\n")
    assert stray_figures(page) == ["Results: 3.7", "Results: 1.8", "Results: 5.9", "Results: 44.8%",
                                   "Corrections (2026-12-02): 0.9"]


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_the_protocol_is_byte_for_byte_as_committed(name):
    commit, digest = PROTOCOLS[name]
    protocol = "## Protocol" + sections((ROOT / "docs" / "results" / name).read_text(encoding="utf-8"))["Protocol"][
        len("## Protocol"):]
    assert hashlib.sha256(protocol.encode("utf-8")).hexdigest() == digest
    committed = subprocess.run(["git", "show", f"{commit}:docs/results/{name}"], capture_output=True, text=True, cwd=ROOT)
    if committed.returncode == 0:  # a clone with its history
        assert sections(committed.stdout)["Protocol"] == protocol
