"""Adds module names to AllenNLP's global plugins file (`~/.allennlp/plugins`, one module a line),
so that `allennlp` imports them in any folder: their subcommands then exist everywhere, which
`--include-package` cannot do (AllenNLP parses the subcommand before it reads that flag).

Idempotent: a name already listed is not added again; other lines are kept as they are, except a
package that a listed submodule imports anyway (a line `srcframework` beside
`srcframework.allennlp_plugin`, left by an older install), which would only make AllenNLP import
and announce it before the submodule can quiet its announcements.

    python scripts/register_allennlp_plugin.py srcframework [--plugins-file PATH]
"""
import argparse
import os
from pathlib import Path
from typing import List, Tuple


def superseded(names: List[str]) -> List[str]:
    """The names in `names` that another one is a submodule of (importing `a.b` imports `a`)."""
    return [name for name in names if any(other.startswith(name + ".") for other in names)]


def register(modules: List[str], plugins_file: str) -> Tuple[List[str], List[str]]:
    """Appends each of `modules` that `plugins_file` does not list yet and drops the `superseded`
    lines; returns the names added and those dropped."""
    path = Path(plugins_file)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = [line for line in text.splitlines() if line.strip()]
    listed = {line.strip() for line in lines}
    added = [name for name in dict.fromkeys(modules) if name not in listed]
    dropped = superseded(list(dict.fromkeys([line.strip() for line in lines] + added)))
    if added or dropped:
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = [line for line in lines if line.strip() not in dropped] + [name for name in added if name not in dropped]
        temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        temporary.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
        os.replace(temporary, path)
    return [name for name in added if name not in dropped], [name for name in dropped if name in listed]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="+", help="module names, such as srcframework")
    parser.add_argument("--plugins-file", default=str(Path.home() / ".allennlp" / "plugins"),
                        help="default: ~/.allennlp/plugins (AllenNLP's global plugins file)")
    args = parser.parse_args()
    for name in args.modules:
        if not name.isidentifier() and not all(part.isidentifier() for part in name.split(".")):
            parser.error(f"{name!r} is not a module name")
    added, dropped = register(args.modules, args.plugins_file)
    state = f"added {', '.join(added)}" if added else "already listed"
    if dropped:
        state += f"; dropped {', '.join(dropped)} (a listed submodule imports it)"
    print(f"AllenNLP global plugins file {args.plugins_file}: {state}")


if __name__ == "__main__":
    main()
