"""Adds module names to AllenNLP's global plugins file (`~/.allennlp/plugins`, one module a line),
so that `allennlp` imports them in any folder: their subcommands then exist everywhere, which
`--include-package` cannot do (AllenNLP parses the subcommand before it reads that flag).

Idempotent: a name already listed is not added again; other lines are kept as they are.

    python scripts/register_allennlp_plugin.py srcframework [--plugins-file PATH]
"""
import argparse
import os
from pathlib import Path
from typing import List


def register(modules: List[str], plugins_file: str) -> List[str]:
    """Appends each of `modules` that `plugins_file` does not list yet; returns those added."""
    path = Path(plugins_file)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    listed = {line.strip() for line in text.splitlines()}
    added = [name for name in dict.fromkeys(modules) if name not in listed]
    if added:
        path.parent.mkdir(parents=True, exist_ok=True)
        if text and not text.endswith("\n"):
            text += "\n"
        temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        temporary.write_text(text + "".join(f"{name}\n" for name in added), encoding="utf-8")
        os.replace(temporary, path)
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="+", help="module names, such as srcframework")
    parser.add_argument("--plugins-file", default=str(Path.home() / ".allennlp" / "plugins"),
                        help="default: ~/.allennlp/plugins (AllenNLP's global plugins file)")
    args = parser.parse_args()
    for name in args.modules:
        if not name.isidentifier() and not all(part.isidentifier() for part in name.split(".")):
            parser.error(f"{name!r} is not a module name")
    added = register(args.modules, args.plugins_file)
    state = f"added {', '.join(added)}" if added else "already listed"
    print(f"AllenNLP global plugins file {args.plugins_file}: {state}")


if __name__ == "__main__":
    main()
