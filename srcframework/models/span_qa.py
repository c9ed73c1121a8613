import contextlib
from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.nn import InitializerApplicator, RegularizerApplicator
from allennlp.nn.util import get_text_field_mask
from allennlp.training.metrics import BooleanAccuracy, CategoricalAccuracy

from srcframework.common.errors import InputError
from srcframework.metrics.records import question_groups
from srcframework.metrics.squad_em_f1 import SquadEmAndF1
from srcframework.models import length_groups as groups_of
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.span_heads.span_head import SpanHead


# `training_autocast`'s values
AUTOCAST_DTYPES = {None: None, "bfloat16": torch.bfloat16}


@Model.register("span_qa")
class SpanQA(Model):
    """
    Extractive QA as encoders + a span head: the context and the question are encoded separately
    (each by a `FieldEncoder`, so either can be text or audio) and a `SpanHead` picks the answer
    span of the context. With the `text` encoder and the `bi_attention` head this is BiDAF.

    # Parameters

    vocab : `Vocabulary`
    context_encoder : `FieldEncoder`
        Encodes the `context` field.
    span_head : `SpanHead`
    question_encoder : `FieldEncoder`, optional
        Encodes the `question` field. When omitted, the context encoder is used with the same
        weights (BiDAF's setting). Where it carries an auxiliary loss (the `speecht5` encoder's
        `ctc_weight`) and a batch carries its targets (`question_targets`: the `squad_src`
        reader's `ctc_targets`), the loss is the span loss plus the encoder's weight times that
        loss, reported as the metric `question_<name>` (`question_ctc_loss`, the mean over the
        batches since the last reset); the span head never sees it. Targets given to a question
        encoder without an auxiliary loss are an `InputError`.
    initializer : `InitializerApplicator`, optional
    regularizer : `RegularizerApplicator`, optional
    group_by_length : `bool`, optional (default = `True`)
        Run a batch whose contexts differ widely in length (one of 40,000 tokens among short ones)
        as groups of similar length (`srcframework.models.length_groups`), so that a long context
        costs time and memory for itself only, not for every row padded to it. The spans are the
        same either way; `False` runs every batch padded as it is, whatever `max_group_positions`.
    max_group_positions : `int`, optional (default = `50000`)
        The most context positions (rows x longest context) that one pass of the encoders and the
        span head takes at once: a larger batch, such as several questions on one 40,000-token
        context (which `allennlp evaluate` and `predict --batch-size` batch together), runs as
        groups of rows that fit, one after another, with the same spans. A single context longer
        than this runs alone (`max_context_tokens` bounds it). BiDAF at the sizes of
        `training_configs/lib/bidaf.libsonnet` needs about 12 KB of memory a position, so about
        600 MB a pass at the default, whatever the batch size; `null` for no cap.
    training_autocast : `str`, optional (default = `None`)
        `"bfloat16"`: each training step's forward pass runs under `torch.autocast` in bfloat16 on
        the model's device (matrix products, convolutions and LSTMs in bfloat16, and the
        activations between layers from the embeddings on; the span logits, the loss and the
        weights in float32); the LSTM directions that `padded_bilstm` runs in worker threads run
        under it too. This trains BiDAF about 1.2 times as fast on a CPU with AMX and about 1.3
        times on an AMD EPYC with AVX-512 BF16, and with the `allennlp` plugin's cap on oneDNN's
        primitive cache (`srcframework.common.onednn`) at less peak memory than float32
        (docs/benchmarks.md, "Speed against the limit", with its validation F1 over seeds).
        Evaluation and prediction stay in float32. A numerical change: `None` (the default)
        trains in float32.
    share_context_encodings : `bool`, optional (default = `True`)
        Outside training, rows of a batch with the same context (several questions on one
        paragraph, as `allennlp evaluate` and `predict --batch-size` batch them) encode it once and
        the span head runs for each question on that encoding: the context encoder is about half of
        BiDAF's forward pass on a long context. The spans are the same; `False` encodes every row.
    max_context_tokens : `int`, optional (default = `100000`)
        The longest context, in tokens, that the model answers (about 500,000 characters of English;
        BiDAF at the sizes of `training_configs/lib/bidaf.libsonnet` needs about 15 MB of memory a
        thousand tokens, so about 1.5 GB at the cap). A longer one is an `InputError` naming its
        question id and length, before any work on the batch; `null` for no cap.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        context_encoder: FieldEncoder,
        span_head: SpanHead,
        question_encoder: Optional[FieldEncoder] = None,
        initializer: InitializerApplicator = InitializerApplicator(),
        regularizer: Optional[RegularizerApplicator] = None,
        group_by_length: bool = True,
        max_context_tokens: Optional[int] = 100000,
        max_group_positions: Optional[int] = groups_of.MAX_POSITIONS,
        share_context_encodings: bool = True,
        training_autocast: Optional[str] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, regularizer, **kwargs)
        if training_autocast not in AUTOCAST_DTYPES:
            raise InputError(f"span_qa: training_autocast must be null or \"bfloat16\", got {training_autocast!r}")
        self.training_autocast = training_autocast
        for name, value in (("max_context_tokens", max_context_tokens), ("max_group_positions", max_group_positions)):
            if value is not None and value < 1:
                raise InputError(f"span_qa: {name} must be at least 1 (or null), got {value}")
        self.group_by_length = group_by_length
        self.max_group_positions = max_group_positions
        self.max_context_tokens = max_context_tokens
        self.share_context_encodings = share_context_encodings
        self.context_encoder = context_encoder
        self.question_encoder = question_encoder
        self.span_head = span_head
        for name, encoder in (("context", context_encoder), ("question", question_encoder)):
            if encoder is not None and encoder.get_output_dim() != span_head.get_input_dim():
                raise InputError(
                    f"span_qa: {name}_encoder output size {encoder.get_output_dim()} != span_head input size "
                    f"{span_head.get_input_dim()}"
                )
        self._start_accuracy = CategoricalAccuracy()
        self._end_accuracy = CategoricalAccuracy()
        self._span_accuracy = BooleanAccuracy()
        self._squad = SquadEmAndF1()
        self._decoded_batches = 0
        self._auxiliary_sum, self._auxiliary_batches = 0.0, 0
        initializer(self)

    def forward(  # type: ignore
        self,
        context: TextFieldTensors,
        question: Any,
        span_start: Optional[torch.LongTensor] = None,
        span_end: Optional[torch.LongTensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
        question_targets: Optional[torch.Tensor] = None,
    ) -> Dict[str, torch.Tensor]:
        if span_start is not None:
            span_start, span_end = span_start.view(-1), span_end.view(-1)
        self._check_context_lengths(context, metadata)
        self._check_targets(question_targets)
        auxiliary = None if question_targets is None else self._auxiliary_key()
        with self._autocast():
            output = self._shared_context_spans(context, question, span_start, span_end, question_targets)
            if output is None:
                output = self._grouped_spans(context, question, span_start, span_end, question_targets)
            if output is None:
                output = self._spans(context, question, span_start, span_end, question_targets)
        if "loss" in output:
            output["loss"] = output["loss"].float()
        if auxiliary is not None:
            self._auxiliary_sum += float(output[auxiliary].detach())
            self._auxiliary_batches += 1
            if "loss" in output:
                output["loss"] = output["loss"] + self._question_encoder().auxiliary_loss_weight * output[auxiliary]
        if "best_span" in output:
            self._decoded_batches += 1
        if "best_span" in output and span_start is not None:
            self._start_accuracy(output["span_start_logits"], span_start)
            self._end_accuracy(output["span_end_logits"], span_end)
            self._span_accuracy(output["best_span"], torch.stack([span_start, span_end], -1))
        if "best_span" in output and metadata is not None:
            spans = output["best_span"].tolist()
            output["best_span_str"] = []
            output["id"] = []
            output["answers"] = []
            output["groups"] = []
            output["question"] = []
            output["original_question"] = []
            for (start, end), meta in zip(spans, metadata):
                offsets = meta["context_offsets"]
                answer = meta["context"][offsets[start][0] : offsets[end][1]] if offsets else ""
                output["best_span_str"].append(answer)
                output["id"].append(meta["id"])
                output["answers"].append(meta.get("answers") or [])
                output["question"].append(meta.get("question"))
                # the question before noise or ASR; None for a clean or spoken (audio) question
                output["original_question"].append(meta.get("original_question"))
                output["groups"].append(question_groups(meta))
                self._squad(answer, meta.get("answers") or [])
        return output

    def _autocast(self):
        """`torch.autocast` in the dtype of `training_autocast` while training, else nothing."""
        if not (self.training and self.training_autocast):
            return contextlib.nullcontext()
        device = next(self.parameters()).device.type
        return torch.autocast(device, dtype=AUTOCAST_DTYPES[self.training_autocast])

    def _question_encoder(self) -> FieldEncoder:
        return self.question_encoder or self.context_encoder

    def _auxiliary_key(self) -> Optional[str]:
        """The output key and metric of the question encoder's auxiliary loss (None where it has none)."""
        name = self._question_encoder().auxiliary_loss_name
        return None if name is None else "question_" + name

    def _check_targets(self, question_targets) -> None:
        """An `InputError` where the batch carries targets that the question encoder has no loss for."""
        if question_targets is not None and self._auxiliary_key() is None:
            raise InputError(
                "span_qa: the batch carries question_targets (the squad_src reader's ctc_targets), but the question "
                "encoder has no auxiliary loss to take them (the speecht5 encoder's ctc_weight above 0)"
            )

    def _check_context_lengths(self, context, metadata) -> None:
        """An `InputError` naming the question when a context is longer than `max_context_tokens`."""
        if self.max_context_tokens is None or not isinstance(context, dict):
            return
        lengths = get_text_field_mask(context).sum(-1)
        longest = int(lengths.argmax())
        if int(lengths[longest]) > self.max_context_tokens:
            qid = (metadata[longest] or {}).get("id") if metadata else None
            where = f"question id {qid!r}: " if qid is not None else ""
            raise InputError(
                f"{where}the context has {int(lengths[longest]):,} tokens, more than this model's max_context_tokens "
                f"{self.max_context_tokens:,}; split the context, or raise max_context_tokens (about 15 MB of "
                "memory a thousand tokens for BiDAF)"
            )

    def _spans(self, context, question, span_start, span_end, question_targets=None, encoded=None) -> Dict[str, torch.Tensor]:
        """The span head's outputs for the batch as it is, with the question encoder's auxiliary
        loss where `question_targets` are given; `encoded`: the context's encoding and mask where
        they were computed already."""
        context_encoded, context_mask = encoded if encoded is not None else self.context_encoder(context)
        question_encoder = self._question_encoder()
        if question_targets is None:
            question_encoded, question_mask = question_encoder(question)
        else:
            question_encoded, question_mask, auxiliary = question_encoder.forward_with_auxiliary_loss(question, question_targets)
        output = self.span_head(context_encoded, context_mask, question_encoded, question_mask, span_start, span_end)
        if question_targets is not None:
            output[self._auxiliary_key()] = auxiliary
        return output

    def _grouped_spans(self, context, question, span_start, span_end, question_targets=None) -> Optional[Dict[str, torch.Tensor]]:
        """The span head's outputs computed in groups of similar context length and at most
        `max_group_positions` positions, or None where the batch runs as it is (see
        `group_by_length`). A context whose tensors cannot be cut to a group's longest context
        (word pieces) keeps the batch's width: its groups are then only the cap's."""
        if not self.group_by_length or not isinstance(context, dict):
            return None
        mask = get_text_field_mask(context)
        batch_size, width = mask.shape
        lengths = mask.sum(-1).tolist()
        trim = groups_of.can_trim(context, width)
        if not trim:
            lengths = [width] * batch_size
        if not groups_of.needs_groups(lengths, self.max_group_positions):
            return None
        groups = groups_of.length_groups(lengths, max_positions=self.max_group_positions)
        return self._spans_by_group(context, question, span_start, span_end, question_targets, groups, lengths, trim)

    def _shared_context_spans(
        self, context, question, span_start, span_end, question_targets=None
    ) -> Optional[Dict[str, torch.Tensor]]:
        """Outside training, the span head's outputs with each distinct context of the batch
        encoded once (in groups under `max_group_positions`) and the head run on the rows in the
        groups `_grouped_spans` would make; None where no two rows share a context, in training
        (dropout draws differ by row), or where the context tensors cannot be cut to a row's length."""
        if self.training or not self.share_context_encodings or not isinstance(context, dict):
            return None
        mask = get_text_field_mask(context)
        batch_size, width = mask.shape
        if batch_size < 2 or not groups_of.can_trim(context, width):
            return None
        lengths = mask.sum(-1).tolist()
        if min(lengths) == 0:  # an empty context runs with the others, as the other paths run it
            return None
        first = groups_of.same_rows(context, lengths)
        distinct = sorted(set(first))
        if len(distinct) == batch_size:
            return None
        encodings = {}
        for group in groups_of.length_groups([lengths[k] for k in distinct], max_positions=self.max_group_positions):
            rows = [distinct[k] for k in group]
            index = torch.tensor(rows, dtype=torch.long, device=mask.device)
            encoded, _ = self.context_encoder(groups_of.trim_rows(context, index, max(lengths[k] for k in rows)))
            for position, row in enumerate(rows):
                encodings[row] = encoded[position, : lengths[row]]

        def encoded_rows(rows, rows_context):
            rows_mask = get_text_field_mask(rows_context)
            encoded = torch.nn.utils.rnn.pad_sequence([encodings[first[k]] for k in rows], batch_first=True)
            return torch.nn.functional.pad(encoded, (0, 0, 0, rows_mask.size(1) - encoded.size(1))), rows_mask

        if self.group_by_length and groups_of.needs_groups(lengths, self.max_group_positions):
            groups = groups_of.length_groups(lengths, max_positions=self.max_group_positions)
        else:
            groups = [list(range(batch_size))]
        return self._spans_by_group(
            context, question, span_start, span_end, question_targets, groups, lengths, True, encoded_rows
        )

    def _spans_by_group(
        self, context, question, span_start, span_end, question_targets, groups, lengths, trim, encoded_rows=None
    ) -> Dict[str, torch.Tensor]:
        """The span head run on each group of rows in turn, its outputs put back in batch order at
        the batch's width (an auxiliary loss, a batch mean like `loss`, as the groups' mean weighted
        by their sizes). With `trim`, a group's context tensors are cut to its longest row
        (`lengths`); `encoded_rows(rows, rows_context)`: those rows' context encoding and mask,
        where it was computed already."""
        mask = get_text_field_mask(context)
        batch_size, width = mask.shape
        parts = []
        for rows in groups:
            index = torch.tensor(rows, dtype=torch.long, device=mask.device)
            rows_context = (
                groups_of.trim_rows(context, index, max(1, max(lengths[k] for k in rows)))
                if trim else groups_of.select_rows(context, index, batch_size)
            )
            parts.append(self._spans(
                rows_context,
                groups_of.select_rows(question, index, batch_size),
                None if span_start is None else span_start.index_select(0, index),
                None if span_end is None else span_end.index_select(0, index),
                None if question_targets is None else question_targets.index_select(0, index),
                encoded=None if encoded_rows is None else encoded_rows(rows, rows_context),
            ))
        merged = groups_of.merge_outputs(parts, groups, batch_size, width, ("span_start_logits", "span_end_logits"))
        if question_targets is not None:
            auxiliary = self._auxiliary_key()
            merged[auxiliary] = sum(part[auxiliary] * len(rows) for part, rows in zip(parts, groups)) / batch_size
        return merged

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        """Span accuracies and SQuAD EM/F1 (0-1) of the decoded batches; spans are decoded only
        outside training, so training reports its loss alone (and the question encoder's
        auxiliary loss, `question_ctc_loss`, over the batches that carried its targets)."""
        metrics: Dict[str, float] = {}
        if self._auxiliary_batches:
            metrics[self._auxiliary_key()] = self._auxiliary_sum / self._auxiliary_batches
            if reset:
                self._auxiliary_sum, self._auxiliary_batches = 0.0, 0
        if not self._decoded_batches:
            return metrics
        if reset:
            self._decoded_batches = 0
        squad = self._squad.get_metric(reset)
        metrics.update({
            "start_acc": self._start_accuracy.get_metric(reset),
            "end_acc": self._end_accuracy.get_metric(reset),
            "span_acc": self._span_accuracy.get_metric(reset),
            "em": squad["em"],
            "f1": squad["f1"],
        })
        return metrics

    @classmethod
    def _load(cls, config, serialization_dir, weights_file=None, cuda_device: int = -1) -> "Model":
        """AllenNLP's loading, with each pretrained encoder whose config the archive carries built
        from that config (`archived_encoders`): a released archive loads without the encoder's folder."""
        from srcframework.models.archived_encoders import point_at_archived

        point_at_archived(config.params, str(serialization_dir))
        return super()._load(config, serialization_dir, weights_file, cuda_device)

    default_predictor = "span_qa"
