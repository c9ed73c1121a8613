"""`allennlp list-plugins [--json]`: the installed srcframework plugins, what they add, and failures.

It runs even when a plugin is refused (a name clash, which stops every other command): the refused
plugin is listed under FAILED with both sides of the clash."""
import argparse
import json
from typing import List

from allennlp.commands import Subcommand

from srcframework.plugins.manager import PluginReport, load_plugins


@Subcommand.register("list-plugins")
class ListPlugins(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = "List the installed srcframework plugins, their versions, what they add, and any that failed."
        subparser = parser.add_parser(
            self.name, description=description, help="List the installed srcframework plugins."
        )
        subparser.add_argument("--json", action="store_true", help="print the report as JSON")
        subparser.set_defaults(func=run)
        return subparser


def format_table(report: PluginReport) -> str:
    """The report as aligned text: one row per plugin, then one line per failure."""
    if not report.plugins and not report.failures:
        return f"No plugins installed (entry-point group {report.group!r})."
    lines: List[str] = []
    if report.plugins:
        rows = [("PLUGIN", "DISTRIBUTION", "VERSION", "ADDS")]
        for plugin in report.plugins:
            adds = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in sorted(plugin.added.items()))
            rows.append((plugin.name, plugin.distribution or "?", plugin.version or "?", adds or "-"))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3] for row in rows]
    if report.failures:
        if lines:
            lines.append("")
        lines.append(f"FAILED ({len(report.failures)}):")
        for failure in report.failures:
            where = f"{failure.distribution or '?'} {failure.version or '?'}, {failure.value}"
            what = "refused" if failure.stage == "refused" else f"{failure.stage} failed"
            lines.append(f"  {failure.name} ({where}): {what}: {failure.error}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> PluginReport:
    report = load_plugins(strict=False)
    print(json.dumps(report.to_dict(), indent=2) if args.json else format_table(report))
    return report
