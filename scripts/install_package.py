"""Installs srcframework with its working AllenNLP into the venv whose Python runs this script, in
one command, from any folder:

    python path/to/clone/scripts/install_package.py [SOURCE] [--no-plugins-file]

1. `pip install -c CLONE/constraints.txt SOURCE`: srcframework (SOURCE: the clone by default, or a
   wheel built from it) with what it and AllenNLP need at run time, at the versions that work
   together (`constraints.txt`);
2. `pip install --no-deps -c CLONE/constraints.txt allennlp==2.10.1`: AllenNLP's own pins
   (torch<1.13, transformers<4.21, ...) cannot be resolved with today's packages, so it goes in
   without them;
3. adds `srcframework.allennlp_plugin` to AllenNLP's global plugins file (`~/.allennlp/plugins`),
   so that the `allennlp` command has srcframework's subcommands in any folder (as `make install`
   does; `--no-plugins-file` leaves the file alone);
4. imports the plugin once, and prints where the package is and how to fetch a released model.

Extra arguments after `--` go to both pip calls (`-- --no-index --find-links DIR`). A failing
step stops the script with pip's own message and its exit status.
"""
import argparse
import subprocess
import sys
from pathlib import Path

CLONE = Path(__file__).resolve().parents[1]
CONSTRAINTS = CLONE / "constraints.txt"
ALLENNLP = "allennlp==2.10.1"
PLUGIN = "srcframework.allennlp_plugin"


def run(step: str, command: list) -> None:
    print(f"[{step}] {' '.join(command)}", flush=True)
    done = subprocess.run(command)
    if done.returncode != 0:
        sys.exit(f"install_package: {step} failed (exit status {done.returncode}); see pip's message above")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", default=str(CLONE), help="the clone (default) or a srcframework wheel")
    parser.add_argument("--no-plugins-file", action="store_true", help="leave ~/.allennlp/plugins alone")
    parser.add_argument("pip_args", nargs=argparse.REMAINDER, help="after --: more arguments for pip")
    args = parser.parse_args()
    extra = args.pip_args[1:] if args.pip_args[:1] == ["--"] else args.pip_args
    if not Path(args.source).exists():
        parser.error(f"{args.source} is not there: give the clone or a srcframework wheel")
    if sys.prefix == sys.base_prefix:
        print("install_package: note: this Python is not a venv's; run it with the venv's python to install there",
              file=sys.stderr)
    pip = [sys.executable, "-m", "pip", "install", "-c", str(CONSTRAINTS)]
    run("srcframework", pip + [args.source] + extra)
    run("allennlp", pip + ["--no-deps", ALLENNLP] + extra)
    if not args.no_plugins_file:
        run("plugins file", [sys.executable, str(CLONE / "scripts" / "register_allennlp_plugin.py"), PLUGIN])
    check = f"import {PLUGIN}, srcframework; print(srcframework.__file__)"
    where = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=Path.home())
    if where.returncode != 0:
        sys.exit(f"install_package: the installed package does not import: {where.stderr.strip().splitlines()[-1:]}")
    print(f"srcframework installed: {where.stdout.strip()}")
    print("a released model answers by name: python -c \"from srcframework.pretrained import load_predictor; "
          "print(load_predictor('bidaf-clean').predict_json({'question': 'Who?', 'passage': 'Ada wrote it.'})"
          "['best_span_str'])\"")


if __name__ == "__main__":
    main()
