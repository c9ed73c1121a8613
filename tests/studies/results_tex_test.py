import re

from srcframework.studies.results_tex import results_tex, tex_escape


def test_tex_tables_are_balanced_and_escaped(results):
    tex = results_tex(results)
    assert tex.count(r"\begin{table}") == 13 == tex.count(r"\end{tabular}")  # with the validation curves
    for block in re.findall(r"\\begin\{tabular\}\{([lr]+)\}(.*?)\\end\{tabular\}", tex, re.S):
        columns, body = block
        for line in body.strip().splitlines():
            if line.endswith(r"\\") and r"\multicolumn" not in line:
                assert line.count(" & ") == len(columns) - 1, line
    assert r"accent\_audio\_like (via accent)" in tex and "accent_audio_like" not in tex.replace(r"\_", "")
    assert r"\multicolumn{3}{c}{tiny}" in tex and r"\cmidrule(lr){4-6}" in tex and r"$\Delta$F1" in tex
    assert tex_escape("50% & $x_1#") == r"50\% \& \$x\_1\#"
    assert tex_escape("1.0 [0.5, 2.0]† <0.001 →") == r"1.0 [0.5, 2.0]$^\dagger$ $<$0.001 $\rightarrow$"
    assert "†" not in tex and "→" not in tex
