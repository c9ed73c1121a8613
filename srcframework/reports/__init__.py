"""Evaluation reports: `accent` scores spoken-question QA per country, gender and speaker."""
from srcframework.reports.accent import accent_report, records_from_predictions, write_accent_report  # noqa: F401
