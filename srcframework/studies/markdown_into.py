"""A study's results tables written into a Markdown file (a recipe's README), between markers:

    <!-- results:NAME -->                          (optionally: <!-- results:NAME tables=em_f1,robustness -->)
    ... everything here is replaced ...
    <!-- /results:NAME -->

    python -m srcframework.studies.markdown_into RESULTS.json README.md [--name NAME]

The block gets a hidden line naming its source (`<!-- source: PATH -->`, relative to the
Markdown file's folder), a visible line with the command that made it, and each table of
`srcframework.studies.tables` that has rows and is listed in the opening marker's `tables=`
(default `DEFAULT_TABLES`), with its notes. The visible line links to the source; with the option
`link=none` (a page of the documentation site, whose links must stay inside the site) it names the
source's path from the repository root instead. Everything outside the block is left as it is; the
file is written atomically. A block with no source line is one whose study has not run yet: it
holds a sentence saying so, never a table typed by hand (tests/recipes checks both).
"""
import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import List, Optional

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import read_json, write_text_atomic
from srcframework.studies.results_markdown import markdown_table
from srcframework.studies.tables import results_tables

DEFAULT_TABLES = ("em_f1", "robustness", "f1_by_seed", "training", "f1_by_country", "question_noise")
TABLE_NAMES = (
    "em_f1", "robustness", "seed_tests", "variance_components", "set_groups", "drop_by_set", "power",
    "validation_curves", "f1_by_seed", "training", "drop_tests", "model_comparisons", "cross_comparisons",
    "f1_by_country", "f1_by_gender", "f1_by_speaker",
    "question_noise", "wer_by_country", "flips", "f1_by_question_type", "f1_by_length", "f1_by_wer_bucket",
)
OPENING = re.compile(r"^<!-- results:(?P<name>[A-Za-z0-9_.-]+)(?P<options>(?: [a-z_]+=[^ ]*)*) -->$", re.MULTILINE)
SOURCE = re.compile(r"^<!-- source: (?P<path>.+) -->$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One results block of a Markdown text: `text[start:end]` is its content (between the markers)."""

    name: str
    tables: tuple
    start: int
    end: int
    content: str
    link: bool = True

    @property
    def source(self) -> Optional[str]:
        """The results.json the block was made from (relative to the Markdown file), or None."""
        found = SOURCE.search(self.content)
        return found.group("path") if found else None


LINK_VALUES = ("none",)


def _options(options: str, where: str) -> dict:
    values = dict(option.split("=", 1) for option in options.split())
    unknown = sorted(set(values) - {"tables", "link"})
    if unknown:
        raise InputError(f"{where}: unknown marker option {unknown[0]!r}; the options are tables=NAME,NAME and link=none")
    if "link" in values and values["link"] not in LINK_VALUES:
        raise InputError(f"{where}: link={values['link']}: the only value is link=none")
    return values


def _tables_option(options: str, where: str) -> tuple:
    values = _options(options, where)
    if "tables" not in values:
        return DEFAULT_TABLES
    tables = tuple(name for name in values["tables"].split(",") if name)
    for name in tables:
        if name not in TABLE_NAMES:
            raise InputError(f"{where}: unknown table {name!r}; the tables are {', '.join(TABLE_NAMES)}")
    return tables


def find_blocks(text: str, path: str = "<markdown>") -> List[Block]:
    """Every `<!-- results:NAME -->` ... `<!-- /results:NAME -->` block of `text`, in order."""
    blocks = []
    for opening in OPENING.finditer(text):
        name = opening.group("name")
        where = f"{path}: results block {name!r}"
        closing = text.find(f"\n<!-- /results:{name} -->", opening.end())
        if closing < 0:
            raise InputError(f"{where} has no closing <!-- /results:{name} --> line")
        start = opening.end() + 1
        link = _options(opening.group("options"), where).get("link") != "none"
        blocks.append(Block(name, _tables_option(opening.group("options"), where), start, closing + 1,
                            text[start:closing + 1], link))
    names = [block.name for block in blocks]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InputError(f"{path}: results block {twice[0]!r} appears more than once")
    return blocks


def render_block(results: dict, source: str, command: str, tables: tuple, shown: Optional[str] = None) -> str:
    """A block's content: the source line, the command, and the chosen tables with their notes.
    `shown`: the source as the visible line names it, without a link (default: a link to it)."""
    named = f"`{shown}`" if shown else f"[{source}]({source})"
    lines = [f"<!-- source: {source} -->", f"Generated from {named} (study `{results.get('study')}`) by "
             f"`{command}`; do not edit by hand.", ""]
    chosen = [table for table in results_tables(results) if table.name in tables]
    chosen.sort(key=lambda table: tables.index(table.name))
    if not chosen:
        lines += ["The results hold none of the tables " + ", ".join(tables) + ".", ""]
    for table in chosen:
        lines += [f"**{table.title}**", "", markdown_table(table), ""]
        lines += [note for note in table.notes] + ([""] if table.notes else [])
    return "\n".join(lines).rstrip("\n") + "\n"


def load_results(path: str) -> dict:
    results = read_json(path, f"{path}: results file not found")
    if not isinstance(results, dict) or not {"models", "test_sets", "pairs"} <= set(results):
        raise InputError(f"{path}: not a study's results.json (it needs models, test_sets and pairs)")
    return results


def block_for(blocks: List[Block], name: Optional[str], path: str) -> Block:
    if name is not None:
        for block in blocks:
            if block.name == name:
                return block
        raise InputError(f"{path}: no results block {name!r} (<!-- results:{name} --> ... <!-- /results:{name} -->)")
    if len(blocks) != 1:
        found = ", ".join(block.name for block in blocks) or "none"
        raise InputError(f"{path}: {len(blocks)} results blocks ({found}); name one with --name")
    return blocks[0]


def expected_content(results_path: str, markdown_path: str, tables: tuple, link: bool = True,
                     name: Optional[str] = None) -> str:
    """What the block of `markdown_path` made from `results_path` holds (`name`: the block's, named
    in the command when the file has several)."""
    folder = os.path.dirname(os.path.abspath(markdown_path))
    source = os.path.relpath(os.path.abspath(results_path), folder).replace(os.sep, "/")
    relative = [os.path.relpath(path).replace(os.sep, "/") for path in (results_path, markdown_path)]
    command = "python -m srcframework.studies.markdown_into " + " ".join(relative) + (f" --name {name}" if name else "")
    return render_block(load_results(results_path), source, command, tables, None if link else relative[0])


def block_names(markdown_path: str) -> List[str]:
    """The names of the results blocks of the Markdown file `markdown_path`, in order."""
    if not os.path.isfile(markdown_path):
        raise InputFileNotFound(f"{markdown_path}: Markdown file not found")
    with open(markdown_path, encoding="utf-8") as handle:
        return [block.name for block in find_blocks(handle.read(), markdown_path)]


def markdown_into(results_path: str, markdown_path: str, name: Optional[str] = None) -> str:
    """Replaces the results block (`name`, or the only one) of `markdown_path` with the tables of
    `results_path`; returns the block's name. The rest of the file is kept byte for byte."""
    if not os.path.isfile(markdown_path):
        raise InputFileNotFound(f"{markdown_path}: Markdown file not found")
    with open(markdown_path, encoding="utf-8") as handle:
        text = handle.read()
    blocks = find_blocks(text, markdown_path)
    block = block_for(blocks, name, markdown_path)
    content = expected_content(results_path, markdown_path, block.tables, block.link,
                               block.name if len(blocks) > 1 else None)
    if content != block.content:
        write_text_atomic(markdown_path, text[:block.start] + content + text[block.end:])
    return block.name


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m srcframework.studies.markdown_into",
        description="Write a study's results tables into a Markdown file, between "
                    "<!-- results:NAME --> and <!-- /results:NAME --> lines.",
    )
    parser.add_argument("results", help="a study's results.json (allennlp compare)")
    parser.add_argument("markdown", help="the Markdown file, e.g. recipes/X/README.md")
    parser.add_argument("--name", default=None, help="the block to fill (default: the file's only results block)")
    args = parser.parse_args(argv)
    try:
        name = markdown_into(args.results, args.markdown, args.name)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{args.markdown}: results block {name!r} written from {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
