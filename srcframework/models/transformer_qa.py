from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import PretrainedTransformerEmbedder
from allennlp.nn import InitializerApplicator

from srcframework.metrics.records import question_groups
from srcframework.metrics.squad_em_f1 import SquadEmAndF1
from srcframework.modules.span_heads.span_ops import best_span, mask_logits


def context_mask(metadata: List[Dict[str, Any]], shape: torch.Size, device: torch.device) -> torch.BoolTensor:
    """B x W x L mask of the context wordpieces of every window (from the reader's
    `metadata["windows"]`: first context wordpiece, its window position, context count)."""
    mask = torch.zeros(shape, dtype=torch.bool, device=device)
    for b, meta in enumerate(metadata):
        for w, (_, position, count) in enumerate(meta["windows"]):
            mask[b, w, position : position + count] = True
    return mask


def question_level_loss(log_probs: torch.Tensor, gold: torch.LongTensor) -> torch.Tensor:
    """-log of the probability mass on the gold positions, per question.

    log_probs: B x W x L, normalised over all W x L positions of a question; gold: B x W window
    positions of the answer, -1 in windows without it. Returns B values; -inf-free only for
    questions with at least one gold window."""
    picked = log_probs.gather(2, gold.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -torch.logsumexp(mask_logits(picked, gold >= 0), dim=-1)


@Model.register("src_transformer_qa")
class TransformerQA(Model):
    """
    BERT-style extractive QA over the sliding windows of the `src_transformer_squad` reader: every
    window `[CLS] question [SEP] context-slice [SEP]` goes through a pretrained transformer and a
    linear layer gives a start and an end logit per wordpiece.

    Loss (question level): the start logits of all context wordpieces of all windows of a question
    form one softmax (likewise the end logits); the loss is -log of the start probability summed
    over the windows that hold the answer, plus the same for the end. Scores of different windows
    are thus comparable, which is what decoding across windows needs. A question whose answer lies
    in no window adds nothing to the loss.

    Decoding (outside training): the best span with start <= end, at most `max_span_length`
    wordpieces, inside the context part of one window, over all windows of the question; it is
    mapped back to characters of the original context. Outputs `id`, `best_span_str`, `best_span`
    (inclusive context wordpiece indices into `metadata["context_offsets"]`), `best_window`,
    `answers`, `groups`, `question` and `original_question`, like `span_qa`, so the `span_qa`
    predictor and the reports work unchanged.

    # Parameters

    vocab : `Vocabulary`
    transformer_model_name : `str`
        The same Hugging Face name or local directory as the reader's.
    max_span_length : `int`, optional (default = `30`)
        Longest answer, in wordpieces; 0 for no limit.
    transformer_kwargs : `Dict[str, Any]`, optional
        Passed to the transformer's `from_pretrained`.
    initializer : `InitializerApplicator`, optional
    """

    def __init__(
        self,
        vocab: Vocabulary,
        transformer_model_name: str,
        max_span_length: int = 30,
        transformer_kwargs: Optional[Dict[str, Any]] = None,
        initializer: InitializerApplicator = InitializerApplicator(),
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        self.transformer = PretrainedTransformerEmbedder(transformer_model_name, transformer_kwargs=transformer_kwargs)
        self.span_output = torch.nn.Linear(self.transformer.get_output_dim(), 2)
        self.max_span_length = max_span_length
        self._squad = SquadEmAndF1()
        self._decoded_batches = 0
        initializer(self)

    def _window_logits(self, tokens: Dict[str, torch.Tensor]) -> torch.Tensor:
        """B x W x L x 2 logits; padded (empty) windows skip the transformer and get zeros."""
        token_ids, mask = tokens["token_ids"], tokens["mask"]
        batch, windows, length = token_ids.shape
        flat_mask = mask.view(-1, length)
        rows = flat_mask.any(-1).nonzero().squeeze(-1)
        used = int(flat_mask.sum(-1).max())
        type_ids = tokens.get("type_ids")
        encoded = self.transformer(
            token_ids.view(-1, length)[rows, :used],
            flat_mask[rows, :used],
            type_ids=None if type_ids is None else type_ids.view(-1, length)[rows, :used],
        )
        logits = self.span_output(encoded)
        logits = torch.nn.functional.pad(logits, (0, 0, 0, length - used))
        full = logits.new_zeros(batch * windows, length, 2).index_copy(0, rows, logits)
        return full.view(batch, windows, length, 2)

    def forward(  # type: ignore
        self,
        windows: TextFieldTensors,
        metadata: List[Dict[str, Any]],
        span_start: Optional[torch.LongTensor] = None,
        span_end: Optional[torch.LongTensor] = None,
    ) -> Dict[str, torch.Tensor]:
        logits = self._window_logits(windows["tokens"])
        batch, num_windows, length, _ = logits.shape
        mask = context_mask(metadata, logits.shape[:3], logits.device)
        start_logits = mask_logits(logits[..., 0], mask)
        end_logits = mask_logits(logits[..., 1], mask)
        output: Dict[str, Any] = {"span_start_logits": start_logits, "span_end_logits": end_logits}
        if span_start is not None:
            start_log_probs = start_logits.view(batch, -1).log_softmax(-1).view_as(start_logits)
            end_log_probs = end_logits.view(batch, -1).log_softmax(-1).view_as(end_logits)
            gold_start, gold_end = span_start.view(batch, -1), span_end.view(batch, -1)
            answered = (gold_start >= 0).any(-1)
            if answered.any():
                losses = question_level_loss(start_log_probs, gold_start) + question_level_loss(end_log_probs, gold_end)
                output["loss"] = losses[answered].mean()
            else:
                output["loss"] = (logits * 0).sum()
        if not self.training:
            self._decode(start_logits, end_logits, metadata, output)
        return output

    def _decode(self, start_logits, end_logits, metadata, output) -> None:
        batch, num_windows, length = start_logits.shape
        spans = best_span(start_logits.view(-1, length), end_logits.view(-1, length), self.max_span_length)
        flat_start, flat_end = start_logits.view(-1, length).float(), end_logits.view(-1, length).float()
        scores = flat_start.gather(1, spans[:, :1]) + flat_end.gather(1, spans[:, 1:])
        scores = scores.view(batch, num_windows)
        real = torch.zeros_like(scores, dtype=torch.bool)
        for b, meta in enumerate(metadata):
            real[b, : len(meta["windows"])] = True
        best_windows = scores.masked_fill(~real, float("-inf")).argmax(-1).tolist()
        spans = spans.view(batch, num_windows, 2).tolist()
        keys = ("best_span_str", "best_span", "best_window", "id", "answers", "groups", "question", "original_question")
        for key in keys:
            output[key] = []
        for b, meta in enumerate(metadata):
            window = best_windows[b]
            first, position, _ = meta["windows"][window]
            start, end = (first + p - position for p in spans[b][window])
            offsets = meta["context_offsets"]
            answer = meta["context"][offsets[start][0] : offsets[end][1]]
            output["best_span_str"].append(answer)
            output["best_span"].append((start, end))
            output["best_window"].append(window)
            output["id"].append(meta["id"])
            output["answers"].append(meta.get("answers") or [])
            output["groups"].append(question_groups(meta))
            output["question"].append(meta.get("question"))
            output["original_question"].append(meta.get("original_question"))
            self._squad(answer, meta.get("answers") or [])
        output["best_span"] = torch.tensor(output["best_span"], dtype=torch.long).view(batch, 2)
        self._decoded_batches += 1

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        """SQuAD EM/F1 (0-1) of the decoded batches, per question; spans are decoded only outside
        training, so training reports its loss alone."""
        if not self._decoded_batches:
            return {}
        if reset:
            self._decoded_batches = 0
        return self._squad.get_metric(reset)

    default_predictor = "span_qa"
