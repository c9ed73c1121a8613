"""A study's tables as Markdown (`results.md`): each table with its title and notes."""
from srcframework.studies.cells import Table, format_cell
from srcframework.studies.tables import results_tables


def markdown_table(table: Table) -> str:
    header = table.flat_header()
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i < table.first else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(format_cell(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join(lines)


def results_markdown(results: dict) -> str:
    lines = [f"# Study: {results['study']}", ""]
    for table in results_tables(results):
        lines += [f"## {table.title}", "", markdown_table(table), ""]
        lines += [note for note in table.notes] + ([""] if table.notes else [])
    return "\n".join(lines).rstrip("\n") + "\n"
