"""A study's tables as LaTeX (`results.tex`): one booktabs `table` float each, its notes the caption."""
from srcframework.studies.cells import SIGNIFICANT, Table, format_cell
from srcframework.studies.tables import results_tables


TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "Δ": r"$\Delta$",
    SIGNIFICANT: r"$^\dagger$", "→": r"$\rightarrow$", "<": r"$<$",
}


def tex_escape(text: str) -> str:
    return "".join(TEX_SPECIAL.get(char, char) for char in text)


def tex_table(table: Table) -> str:
    columns = "l" * table.first + "r" * (len(table.header) - table.first)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + " ".join([tex_escape(table.title) + "."] + [tex_escape(n) for n in table.notes]) + "}",
        rf"\label{{tab:{table.name.replace('_', '-')}}}",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
    ]
    if table.groups:
        cells, rules, column = [], [], 1
        for label, span in table.groups:
            cells.append(rf"\multicolumn{{{span}}}{{c}}{{{tex_escape(label)}}}" if label else " & ".join([""] * span))
            if label:
                rules.append(rf"\cmidrule(lr){{{column}-{column + span - 1}}}")
            column += span
        lines.append(" & ".join(cells) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex_escape(cell) for cell in table.header) + r" \\")
    lines.append(r"\midrule")
    for row in table.rows:
        lines.append(" & ".join(tex_escape(format_cell(cell)) for cell in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def results_tex(results: dict) -> str:
    """The tables as LaTeX `table` floats (needs `\\usepackage{booktabs}`)."""
    parts = [f"% Study {tex_escape(results['study'])}: results tables. Needs \\usepackage{{booktabs}}."]
    parts += [tex_table(table) for table in results_tables(results)]
    return "\n\n".join(parts) + "\n"
