"""Every `allennlp COMMAND --flag` that README.md and docs/ show exists, with that flag."""
import argparse
import importlib.util

import pytest

from tests.conftest import ROOT
from tests.docs.markdown_commands import allennlp_invocations, markdown_files, shell_commands

# options that `allennlp` itself takes before the subcommand (`--debug` is srcframework's)
GLOBAL_OPTIONS = {"--debug", "--help", "-h", "--version"}


def load_api_docs():
    spec = importlib.util.spec_from_file_location("make_api_docs", ROOT / "scripts" / "make_api_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return load_api_docs().allennlp_parser()


def subparsers(parser: argparse.ArgumentParser) -> dict:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def problems_of(arguments, parser) -> list:
    """What is wrong with one `allennlp ARGUMENTS` invocation: an unknown subcommand or flag."""
    while arguments and arguments[0] in GLOBAL_OPTIONS:
        arguments = arguments[1:]
    if not arguments or not arguments[0][:1].isalpha() or arguments[0].isupper():
        return []  # `allennlp` named in prose, `allennlp ...`, or a placeholder (`allennlp COMMAND --help`)
    name, rest = arguments[0], arguments[1:]
    commands = subparsers(parser)
    if name not in commands:
        return [f"no subcommand {name!r}"]
    current, label = commands[name], name
    if rest and rest[0] in subparsers(current):
        current, label = subparsers(current)[rest[0]], f"{name} {rest[0]}"
        rest = rest[1:]
    flags = set(current._option_string_actions)
    wrong = []
    for argument in rest:
        if argument.startswith("-") and len(argument) > 1 and not argument[1:2].isdigit():
            flag = argument.split("=", 1)[0]
            if flag not in flags:
                wrong.append(f"`allennlp {label}` has no {flag}")
    return wrong


def test_the_checker_finds_a_wrong_flag_and_a_wrong_command(parser):
    assert problems_of(["noise", "a.json", "b.json", "--noise", "keyboard", "--workers", "2"], parser) == []
    assert problems_of(["noise", "a.json", "b.json", "--nosie", "keyboard"], parser) == ["`allennlp noise` has no --nosie"]
    assert problems_of(["models", "install", "bidaf-quickstart", "--archive", "x"], parser) == []
    assert problems_of(["models", "path", "x", "--archive", "y"], parser) == ["`allennlp models path` has no --archive"]
    assert problems_of(["no-such-command"], parser) == ["no subcommand 'no-such-command'"]
    assert problems_of(["--debug", "evaluate", "m.tar.gz", "d.json", "--output-file", "m.json"], parser) == []


def test_every_shown_command_exists_with_its_flags(parser):
    checked, wrong = 0, []
    for path in markdown_files():
        for line, command in shell_commands(path):
            for arguments in allennlp_invocations(command):
                checked += 1
                wrong += [f"{path.relative_to(ROOT)}:{line}: {problem}: {command}"
                          for problem in problems_of(arguments, parser)]
    assert checked > 50
    assert not wrong, "\n".join(wrong)
