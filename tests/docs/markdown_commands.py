"""The shell commands that README.md and docs/ show: fenced `bash` blocks and inline code spans,
split into commands, and the `allennlp` invocations in them."""
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from tests.conftest import ROOT

SHELL_LANGUAGES = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
# `allennlp` as a command word, not part of a path or a name (`.allennlp_plugins`, `allennlp-models`)
COMMAND_WORD = re.compile(r"(?<![\w./~-])allennlp(?![\w./-])")
HEREDOC = re.compile(r"<<-?\s*'?\"?(\w+)'?\"?")
OPERATORS = {"|", "||", "&&", ";", "&", "(", ")", "$", "<", ">", ">>", "`"}


def markdown_files() -> List[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


@dataclass
class Block:
    language: str
    text: str
    line: int  # 1-based line of the opening fence


def fenced_blocks(text: str) -> List[Block]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, language, start = match.group(1), match.group(2), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        blocks.append(Block(language, "\n".join(body), start + 1))
        i += 1
    return blocks


def without_fences(text: str) -> str:
    """The Markdown text with its fenced blocks blanked out (for the inline code spans)."""
    out, inside = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            inside = not inside
            out.append("")
        else:
            out.append("" if inside else line)
    return "\n".join(out)


@dataclass
class Command:
    text: str                       # one logical line (continuations joined), or a heredoc's command
    heredoc: Optional[str] = None   # the heredoc's body, for `cat > FILE <<'EOF'`


def split_commands(script: str) -> List[Command]:
    """A shell block as commands: backslash continuations joined, comment-only and blank lines
    dropped, heredoc bodies attached to their command."""
    commands: List[Command] = []
    lines = script.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        if not line.strip() or line.strip().startswith("#"):
            continue
        heredoc = HEREDOC.search(line)
        if heredoc:
            body = []
            while i < len(lines) and lines[i].strip() != heredoc.group(1):
                body.append(lines[i])
                i += 1
            i += 1
            commands.append(Command(line.strip(), "\n".join(body) + "\n"))
        else:
            commands.append(Command(line.strip()))
    return commands


def shell_commands(path: Path) -> Iterator[Tuple[int, str]]:
    """(line, command) of every shell command a Markdown file shows, in fenced shell blocks and in
    inline code spans that start with `allennlp`."""
    text = path.read_text(encoding="utf-8")
    for block in fenced_blocks(text):
        if block.language in SHELL_LANGUAGES:
            for command in split_commands(block.text):
                yield block.line, command.text
    for number, line in enumerate(without_fences(text).splitlines(), start=1):
        for span in INLINE.findall(line):
            if COMMAND_WORD.match(span.strip()):
                yield number, span.strip()


def tokens(command: str) -> List[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # an unbalanced quote in prose: split on whitespace
        return command.split()


def allennlp_invocations(command: str) -> List[List[str]]:
    """The arguments of each `allennlp` invocation in a command, up to the next shell operator."""
    words = tokens(command)
    found = []
    for index, word in enumerate(words):
        if word == "allennlp":
            arguments = []
            for argument in words[index + 1:]:
                if argument in OPERATORS or set(argument) <= set("|&;()<>$`"):
                    break
                arguments.append(argument)
            found.append(arguments)
    return found


def _level(line: str) -> int:
    return len(line) - len(line.lstrip("#")) if line.startswith("#") and line.lstrip("#").startswith(" ") else 0


def section(text: str, heading: str) -> str:
    """The Markdown of the section that `heading` (e.g. `## Quick tour`) opens, up to the next
    heading of the same or a higher level (outside fenced blocks)."""
    lines = without_fences(text).splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    level = _level(heading)
    end = next((i for i in range(start + 1, len(lines)) if 0 < _level(lines[i]) <= level), len(lines))
    return "\n".join(text.splitlines()[start:end])


def section_commands(path: Path, heading: str) -> List[Command]:
    """The commands of the shell blocks of one section, in order."""
    text = section(path.read_text(encoding="utf-8"), heading)
    commands: List[Command] = []
    for block in fenced_blocks(text):
        if block.language in SHELL_LANGUAGES:
            commands.extend(split_commands(block.text))
    return commands
