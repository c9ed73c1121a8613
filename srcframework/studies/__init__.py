"""Model-comparison studies: a study file lists model archives and test sets; `allennlp compare`
runs every pair (cached, resumable, parallel, shardable) and writes paper-style tables, figures
and an HTML report."""
from srcframework.studies.study import ModelSpec, Study, StudyError, TestSetSpec, load_study  # noqa: F401
from srcframework.studies.collection import collect_results  # noqa: F401
from srcframework.studies.outputs import write_outputs  # noqa: F401
from srcframework.studies.runner import run_study  # noqa: F401
