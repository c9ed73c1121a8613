from typing import Dict, List

from allennlp.training.metrics import Metric

from srcframework.metrics.squad import exact_match_score, f1_score, metric_max_over_ground_truths


@Metric.register("squad_em_f1")
class SquadEmAndF1(Metric):
    """
    Running SQuAD v1.1 exact match and F1 (official normalisation), averaged over the questions
    seen, on a 0-1 scale. Works across distributed workers.

    # Parameters

    None.
    """

    def __init__(self) -> None:
        self._em = 0.0
        self._f1 = 0.0
        self._count = 0

    def __call__(self, best_span_string: str, answer_strings: List[str]) -> None:  # type: ignore
        if not answer_strings:
            return
        self._em += metric_max_over_ground_truths(exact_match_score, best_span_string, answer_strings)
        self._f1 += metric_max_over_ground_truths(f1_score, best_span_string, answer_strings)
        self._count += 1

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        from allennlp.common.util import is_distributed

        em, f1, count = self._em, self._f1, self._count
        if is_distributed():
            import torch
            import torch.distributed as dist

            totals = torch.tensor([em, f1, float(count)], dtype=torch.float64)
            dist.all_reduce(totals)
            em, f1, count = totals.tolist()
        if reset:
            self.reset()
        if count == 0:
            return {"em": 0.0, "f1": 0.0}
        return {"em": em / count, "f1": f1 / count}

    def reset(self) -> None:
        self._em, self._f1, self._count = 0.0, 0.0, 0
