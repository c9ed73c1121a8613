"""Which process this is: the `allennlp` command line or not, and which of its subcommands.
`srcframework.commands.cli_errors` gives these names too; they live here so that the lowest layer
(`common.shadowing`) can ask without importing the commands."""
import os
import sys
from typing import Optional


def running_allennlp_cli(argv: Optional[list] = None) -> bool:
    """Whether this process is the `allennlp` command line (`allennlp ...` or `python -m allennlp`)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "allennlp.__main__":
        return True
    argv = sys.argv if argv is None else argv
    return bool(argv) and os.path.basename(argv[0]) == "allennlp"


def subcommand(argv: Optional[list] = None) -> Optional[str]:
    """The subcommand of an `allennlp` command line (its first argument not starting with `-`)."""
    argv = sys.argv if argv is None else argv
    return next((arg for arg in argv[1:] if not arg.startswith("-")), None)


def running_subcommand() -> Optional[str]:
    """The subcommand when this process is the `allennlp` command line, else None."""
    return subcommand() if running_allennlp_cli() else None


def subcommand_action(argv: Optional[list] = None) -> Optional[str]:
    """The action of an `allennlp` subcommand that has actions (`run` of `allennlp recipe run NAME`):
    its second argument not starting with `-`, or None."""
    argv = sys.argv if argv is None else argv
    words = [arg for arg in argv[1:] if not arg.startswith("-")]
    return words[1] if len(words) > 1 else None
