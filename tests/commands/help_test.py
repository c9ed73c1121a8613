"""The help of every srcframework subcommand, built as `allennlp` builds it (AllenNLP's parser
class, which appends each option's default to its help)."""
import argparse

import pytest
from allennlp.commands import ArgumentParserWithDefaults
from allennlp.commands.subcommand import Subcommand

import srcframework.commands  # noqa: F401  (registers the subcommands)

OURS = sorted(name for name in Subcommand.list_available()
              if Subcommand.by_name(name).__module__.startswith("srcframework."))


def build():
    """The top-level parser, its subcommand actions and `{name: subparser}` of srcframework's."""
    top = ArgumentParserWithDefaults(prog="allennlp")
    actions = top.add_subparsers(title="Commands", metavar="")
    return top, actions, {name: Subcommand.by_name(name)().add_subparser(actions) for name in OURS}


def all_parsers(parser: argparse.ArgumentParser):
    """`parser` and its nested subparsers (`models list`, ...)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from all_parsers(child)


def test_the_summaries_are_short_sentences_like_allennlps():
    _, actions, _ = build()
    summaries = {action.dest: action.help for action in actions._choices_actions}
    assert sorted(summaries) == OURS and len(OURS) >= 11
    for name, summary in summaries.items():
        assert summary[0].isupper() and summary.endswith(".") and summary.count(". ") == 0, (name, summary)
        assert len(summary) <= 70, (name, summary)


@pytest.mark.parametrize("name", OURS)
def test_every_option_has_help_and_shows_its_default_once(name):
    _, _, parsers = build()
    for parser in all_parsers(parsers[name]):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or not action.option_strings:
                continue
            assert action.help, (parser.prog, action.option_strings)
            shown = action.help.count("(default = ") + action.help.count("default: %(default)s")
            assert shown <= 1, (parser.prog, action.help)
            assert "(default = (" not in action.help, (parser.prog, action.help)  # a tuple, not what one types


def test_accent_report_and_noise_help():
    _, _, parsers = build()
    text = parsers["accent-report"].format_help()
    assert " ".join(text.split()).count("country,gender,speaker") == 1
    noise = parsers["noise"]
    shard = next(action for action in noise._actions if action.dest == "shard")
    assert shard.help.endswith("(default = 0/1)")
    assert noise.parse_args(["in.json", "out.json"]).shard == (0, 1)
    compare = parsers["compare"]
    assert compare.parse_args(["study.jsonnet", "-o", "out"]).shard == (0, 1)
