from srcframework.studies.cells import Estimate, PValue, format_cell
from srcframework.studies.results_markdown import results_markdown
from tests.studies.tables_test import pair


def test_markdown_shows_one_decimal_and_dashes(results):
    markdown = results_markdown(results)
    keyboard = pair(results, "tiny", "keyboard")
    line = next(line for line in markdown.splitlines() if line.startswith("| keyboard |"))
    drop = keyboard["drop_test"]["f1"]
    assert line == (f"| keyboard | keyboard | synthetic | {keyboard['em']:.1f} [{keyboard['em_low']:.1f}, "
                    f"{keyboard['em_high']:.1f}] | {keyboard['f1']:.1f} [{keyboard['f1_low']:.1f}, "
                    f"{keyboard['f1_high']:.1f}] | {drop['difference']:.1f} [{drop['low']:.1f}, {drop['high']:.1f}]"
                    f"{'†' if drop['p_holm'] < 0.05 else ''} | - | - | - |")
    assert markdown.startswith("# Study: accent_study\n") and "| Model | Test set | India |" in markdown
    assert format_cell(None) == "-" and format_cell(12.345) == "12.3" and format_cell(7) == "7"
    assert format_cell(Estimate(12.34, 10.0, 14.56, "†")) == "12.3 [10.0, 14.6]†"
    assert format_cell(PValue(0.0312)) == "0.031" and format_cell(PValue(0.0004)) == "<0.001"
