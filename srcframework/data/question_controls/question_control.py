import logging
from collections import OrderedDict
from typing import Dict, List, Tuple

from allennlp.common import Registrable
from allennlp.common.checks import ConfigurationError
from allennlp.data import Instance
from allennlp.data.fields import MetadataField

logger = logging.getLogger(__name__)


def paragraph_key(instance: Instance) -> Tuple[str, str]:
    """`(title, context)` of an instance: the questions of one paragraph share it, whatever the
    modality of their question (every srcframework reader keeps both in the metadata)."""
    metadata = instance["metadata"].metadata
    return str((metadata.get("extra") or {}).get("title", "")), str(metadata["context"])


class QuestionControl(Registrable):
    """
    A counterfactual test-set transform, the listening test of a study: every question keeps its
    context, answers and id, and its question *input* is replaced, so that the drop from the
    matched set measures how much a model uses the question. It works on instances, after any
    reader, so the same control serves typed, transcribed and spoken sets (a text `TextField` or an
    audio `AudioField` in the `question` field). A study applies it to a test set with the key
    `control` (docs/studies.md); `apply` is also usable on its own.

    A control's metadata note (`control`) goes into each instance's metadata: the control's name
    and, where the input came from another question, that question's id (`question_from`).
    """

    default_implementation = None

    def apply(self, instances: List[Instance]) -> List[Instance]:
        """The instances with their question inputs replaced, in the same order (some may be left
        out, and are counted in `last_left_out`)."""
        raise NotImplementedError

    def describe(self) -> dict:
        """The control's configuration (its registered name and settings), for cache keys."""
        raise NotImplementedError


def check_question_fields(instances: List[Instance], name: str) -> None:
    """A `ConfigurationError` (one line) when an instance has no separate question field or no
    metadata: a model that reads question and context as one sequence (`transformer_qa`) has no
    question input to replace."""
    for instance in instances:
        if "question" not in instance.fields or "metadata" not in instance.fields:
            qid = instance["metadata"].metadata.get("id") if "metadata" in instance.fields else None
            raise ConfigurationError(
                f"question control {name!r}: the instance of question {qid!r} has no separate 'question' field "
                f"(fields: {', '.join(sorted(instance.fields))}); controls need a reader that keeps the question apart"
            )


def by_paragraph(instances: List[Instance]) -> "OrderedDict[Tuple[str, str], List[int]]":
    """Positions of the instances, grouped by paragraph, in order of first appearance."""
    groups: "OrderedDict[Tuple[str, str], List[int]]" = OrderedDict()
    for position, instance in enumerate(instances):
        groups.setdefault(paragraph_key(instance), []).append(position)
    return groups


def with_question(instance: Instance, question_field, note: Dict[str, str], question_text=None) -> Instance:
    """A new instance: `instance`'s fields with `question_field` as its question and `note` in its
    metadata under `control` (and `question_text` as its metadata `question`, the text the model
    read, for a text question; the replaced text then moves to `original_question`)."""
    fields = dict(instance.fields)
    metadata = dict(instance["metadata"].metadata)
    metadata["control"] = note
    if question_text is not None:
        if metadata.get("original_question") is None:
            metadata["original_question"] = metadata.get("question")
        metadata["question"] = question_text
    fields["question"] = question_field
    fields["metadata"] = MetadataField(metadata)
    return Instance(fields)
