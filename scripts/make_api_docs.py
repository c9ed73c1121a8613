"""The API reference of the documentation site, generated from the docstrings.

Each registered component of srcframework (noise sources, field encoders, span heads, readers,
models, speech engines, ...) gets its registered name, its class, its constructor signature and
its docstring, whose AllenNLP-style `# Parameters` section becomes a list of the config keys.
A few modules meant for Python programs (`srcframework.pretrained`, the plugin manager, the
base classes) are documented member by member, and srcframework's subcommands by their `--help`.

Two ways to run it:

- as an MkDocs hook (`hooks:` in mkdocs.yml): `mkdocs build` adds the pages as `api/*.md`, and
  the repository's CHANGELOG.md as `changelog.md`, without writing them into docs/, and puts
  `allennlp models table`'s output where a page says `<!-- models table -->`;
- as a script: `python scripts/make_api_docs.py OUT_DIR` writes the same Markdown files.
"""
import argparse
import contextlib
import inspect
import io
import os
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

ROOT = Path(__file__).resolve().parent.parent

# page -> (title, introduction, the registry base classes it documents, by dotted path)
COMPONENT_PAGES: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    "api/noise.md": (
        "Noise sources",
        "What `allennlp noise --noise`, a reader's `question_noise` and a study's `noise` take: "
        "`{\"type\": NAME, ...}` with the parameters below. See [Noise](../noise.md).",
        ("srcframework.data.noise_source.NoiseSource",),
    ),
    "api/encoders.md": (
        "Field encoders and span heads",
        "The parts of the `span_qa` model: `context_encoder` and `question_encoder` take a field "
        "encoder, `span_head` a span head. See [Architecture](../architecture.md).",
        (
            "srcframework.modules.field_encoders.field_encoder.FieldEncoder",
            "srcframework.modules.span_heads.span_head.SpanHead",
            "allennlp.modules.token_embedders.token_embedder.TokenEmbedder",
            "allennlp.modules.seq2seq_encoders.seq2seq_encoder.Seq2SeqEncoder",
            "allennlp.modules.seq2vec_encoders.seq2vec_encoder.Seq2VecEncoder",
        ),
    ),
    "api/readers.md": (
        "Dataset readers and data",
        "`dataset_reader`, `validation_dataset_reader`, `vocabulary`, token and audio indexers, "
        "tokenizers, and the question controls a study's test set takes as `control`. See "
        "[Configs](../configs.md) and [Studies](../studies.md#listening-controls).",
        (
            "allennlp.data.dataset_readers.dataset_reader.DatasetReader",
            "srcframework.data.question_controls.question_control.QuestionControl",
            "allennlp.data.vocabulary.Vocabulary",
            "allennlp.data.tokenizers.tokenizer.Tokenizer",
            "allennlp.data.token_indexers.token_indexer.TokenIndexer",
            "srcframework.data.audio_indexers.audio_indexer.AudioIndexer",
        ),
    ),
    "api/models.md": (
        "Models, predictors, metrics and trainer callbacks",
        "`model`, `allennlp predict --predictor`, and the `trainer`'s `callbacks`.",
        (
            "allennlp.models.model.Model",
            "allennlp.predictors.predictor.Predictor",
            "allennlp.training.metrics.metric.Metric",
            "allennlp.training.callbacks.callback.TrainerCallback",
            "allennlp.training.checkpointer.Checkpointer",
        ),
    ),
    "api/speech.md": (
        "Speech engines",
        "Synthesizers (text to speech), recognizers (speech to text), CTC decoders (a CTC recognizer's "
        "`decoder`) and translators, used by the "
        "`asr` and `back_translation` noise sources, `allennlp synthesize-speech`, `allennlp "
        "transcribe` and `allennlp cascade`. See [Install](../install.md) for the Debian engines.",
        (
            "srcframework.speech.engines.SpeechSynthesizer",
            "srcframework.speech.engines.SpeechRecognizer",
            "srcframework.speech.ctc_decoder.CtcDecoder",
            "srcframework.speech.engines.Translator",
        ),
    ),
    "api/recipes.md": (
        "Recipe jobs",
        "What a step of `recipes/NAME/recipe.jsonnet` runs in the `allennlp recipe run` process: "
        "`job: {type: NAME, ...}` with the parameters below. See [Configs](../configs.md).",
        ("srcframework.recipes.jobs.RecipeJob",),
    ),
}

# modules documented member by member on api/python.md
PYTHON_MODULES = (
    "srcframework.pretrained",
    "srcframework.plugins.manager",
    "srcframework.data.noise_source",
    "srcframework.modules.field_encoders.field_encoder",
    "srcframework.modules.span_heads.span_head",
    "srcframework.speech.engines",
    "srcframework.jobs.challenge_set",
    "srcframework.metrics.squad",
    "srcframework.studies.study",
)

SECTION = re.compile(r"^#+\s+(Parameters|Returns|Raises|Registered as|Example|Examples|Notes?)\s*$")
PARAMETER = re.compile(r"^(\*{0,2}[A-Za-z_][\w.\[\]'\"-]*)\s*:\s*(.*)$")


def _own(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module == "srcframework" or module.startswith("srcframework.")


def _import(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def _dedent_docstring(doc: str) -> str:
    return inspect.cleandoc(doc or "")


def docstring_markdown(doc: str, heading_level: int = 4) -> str:
    """An AllenNLP-style docstring as Markdown: `# Parameters` and the like become headings of
    `heading_level`, and each `name : type` line of such a section a list item, its indented
    description a paragraph of that item."""
    lines = _dedent_docstring(doc).splitlines()
    out: List[str] = []
    in_section = False
    in_fence = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence:
            out.append(line)
            continue
        match = SECTION.match(stripped) if not line.startswith(" ") else None
        if match:
            out.extend(["", "#" * heading_level + " " + match.group(1), ""])
            in_section = match.group(1) in ("Parameters", "Returns", "Raises")
            continue
        if in_section and line and not line.startswith(" "):
            parameter = PARAMETER.match(line)
            if parameter:
                name, kind = parameter.groups()
                out.extend(["", f"- **{name}**" + (f" : {kind}" if kind else ""), ""])
                continue
            # a type alone (the `Returns` and `Raises` style)
            out.extend(["", f"- {line}", ""])
            continue
        out.append(line)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _signature(obj) -> str:
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return ""
    parameters = [p for p in signature.parameters.values() if p.name != "self"]
    text = str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))
    text = re.sub(r"<class '([\w.]+)'>", r"\1", text)
    text = re.sub(r"\b(typing|torch|allennlp\.[\w.]+|srcframework\.[\w.]+)\.(?=[A-Z])", "", text)
    return text


def _class_entry(name: str, cls: type, level: int = 3) -> str:
    title = "#" * level + f" `{name}`"
    path = f"{cls.__module__}.{cls.__qualname__}"
    lines = [title, "", f"`{path}`", ""]
    signature = _signature(cls)
    if signature:
        lines += ["```python", f"{cls.__name__}{signature}", "```", ""]
    doc = cls.__dict__.get("__doc__")
    lines.append(docstring_markdown(doc, level + 1) if doc else "*(no docstring)*\n")
    return "\n".join(lines)


def registered(base: type) -> List[Tuple[str, type]]:
    """`(name, class)` of every srcframework class registered under `base`, by name."""
    from allennlp.common import Registrable

    entries = Registrable._registry.get(base, {})
    return sorted((name, cls) for name, (cls, _) in entries.items() if _own(cls))


def component_page(title: str, introduction: str, bases: Iterable[str]) -> str:
    parts = [f"# {title}", "", introduction, "",
             "Generated from the docstrings by `scripts/make_api_docs.py`. Every constructor "
             "argument is a config key; `type` is the registered name.", ""]
    for dotted in bases:
        base = _import(dotted)
        entries = registered(base)
        if not entries:
            continue
        parts += [f"## {base.__name__}", "", f"Base class: `{dotted}`. Registered names: "
                  + ", ".join(f"`{name}`" for name, _ in entries) + ".", ""]
        for name, cls in entries:
            parts.append(_class_entry(name, cls))
    return "\n".join(parts)


def _public_members(module) -> List[Tuple[str, object]]:
    members = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) != module.__name__ or not obj.__doc__:
            continue
        members.append((name, obj))
    return sorted(members, key=lambda item: (not inspect.isclass(item[1]), item[0]))


def python_page() -> str:
    parts = ["# Python API", "",
             "The modules a Python program uses directly, member by member. Generated from the "
             "docstrings by `scripts/make_api_docs.py`.", "",
             "```python",
             "import srcframework                      # registers the components, nothing else",
             "import srcframework.allennlp_plugin      # also what the allennlp command line sets up",
             "```", ""]
    for dotted in PYTHON_MODULES:
        module = __import__(dotted, fromlist=["_"])
        parts += [f"## `{dotted}`", ""]
        if module.__doc__:
            parts += [docstring_markdown(module.__doc__, 4), ""]
        for name, obj in _public_members(module):
            if inspect.isclass(obj):
                parts.append(_class_entry(name, obj))
            else:
                parts += [f"### `{name}`", "", "```python", f"{name}{_signature(obj)}", "```", "",
                          docstring_markdown(obj.__doc__, 4)]
    return "\n".join(parts)


def commands_page() -> str:
    """`allennlp COMMAND --help` of each srcframework subcommand (and its actions)."""
    from allennlp.commands import Subcommand

    parts = ["# Commands", "",
             "`allennlp COMMAND --help` of srcframework's subcommands, generated by "
             "`scripts/make_api_docs.py`. AllenNLP's own `train`, `evaluate` and `predict` are "
             "documented in AllenNLP's documentation; [the command table](../index.md#commands) "
             "says how srcframework uses them.", ""]
    old_columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parser = allennlp_parser()
        for name, subparser in sorted(_subparsers(parser).items()):
            if not _own(Subcommand.by_name(name)):
                continue
            parts += [f"## `allennlp {name}`", "", "```text", subparser.format_help().rstrip(), "```", ""]
            for action, actionparser in sorted(_subparsers(subparser).items()):
                parts += [f"### `allennlp {name} {action}`", "", "```text",
                          actionparser.format_help().rstrip(), "```", ""]
    finally:
        if old_columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_columns
    return "\n".join(parts)


def allennlp_parser() -> argparse.ArgumentParser:
    """The `allennlp` command line's parser, built as `allennlp.commands.parse_args` builds it
    (every registered subcommand, `--include-package` where it takes one), without parsing."""
    from allennlp.commands import ArgumentParserWithDefaults, Subcommand

    parser = ArgumentParserWithDefaults(description="Run AllenNLP", prog="allennlp")
    parser.add_argument("--version", action="version")
    subparsers = parser.add_subparsers(title="Commands", metavar="")
    for name in sorted(Subcommand.list_available()):
        cls = Subcommand.by_name(name)
        subparser = cls().add_subparser(subparsers)
        if cls.requires_plugins:
            subparser.add_argument("--include-package", type=str, action="append", default=[],
                                   help="additional packages to include")
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> Dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def index_page() -> str:
    lines = ["# API reference", "",
             "Generated at build time from the source's docstrings (`scripts/make_api_docs.py`); "
             "each registered class's `# Parameters` section lists its config keys.", ""]
    for page, (title, introduction, _) in COMPONENT_PAGES.items():
        lines.append(f"- [{title}]({Path(page).name}): {introduction.split('. See')[0].rstrip('.')}.")
    lines += ["- [Python API](python.md): `srcframework.pretrained`, the plugin manager, the base "
              "classes a plugin subclasses, challenge sets, SQuAD scoring, study files.",
              "- [Commands](commands.md): `--help` of every srcframework subcommand.", ""]
    return "\n".join(lines)


def pages() -> Dict[str, str]:
    """Every generated page: path under the docs folder -> Markdown."""
    import srcframework.allennlp_plugin  # noqa: F401  (registers the components and subcommands)

    generated: Dict[str, str] = {"api/index.md": index_page()}
    for page, (title, introduction, bases) in COMPONENT_PAGES.items():
        generated[page] = component_page(title, introduction, bases)
    generated["api/python.md"] = python_page()
    with contextlib.redirect_stdout(io.StringIO()):
        generated["api/commands.md"] = commands_page()
    changelog = ROOT / "CHANGELOG.md"
    generated["changelog.md"] = changelog.read_text(encoding="utf-8")
    return generated


# ---- MkDocs hook ------------------------------------------------------------------------------

def on_files(files, config):
    """MkDocs hook: adds the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for path, text in pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown, page, config, files):
    """MkDocs hook: a page's `<!-- models table -->` becomes `allennlp models table`'s output."""
    from srcframework.reports.model_cards import TABLE_START

    if TABLE_START in markdown:
        from srcframework.pretrained import model_cards
        from srcframework.reports.model_cards import models_table

        markdown = markdown.replace(TABLE_START, models_table(model_cards()).rstrip("\n"))
    return markdown


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", help="folder to write the Markdown pages into")
    args = parser.parse_args(argv)
    for path, text in pages().items():
        target = Path(args.out_dir) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(target)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
