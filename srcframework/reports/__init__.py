"""Evaluation reports: `accent` scores spoken-question QA per country, gender and speaker."""
from srcframework.metrics.records import records_from_predictions  # noqa: F401
from srcframework.reports.accent import accent_report, write_accent_report  # noqa: F401
