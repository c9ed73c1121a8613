"""How much of a seed-paired difference's uncertainty comes from the training runs and how much from
the test questions: a linear mixed model (statsmodels `MixedLM`) of per-question differences.

The data are `seeds x questions` differences (seed k of a model minus seed k of its twin, per
question: a question's drop difference, or its clean-F1 difference), every seed on the same
questions, each question in a paragraph (its cluster). The model is

    y[s, q] = b[s] + u[paragraph(q)] + w[q] + e[s, q]

with a fixed effect `b[s]` per seed, a random intercept `u` per paragraph (the group), a random
effect `w` per question within its paragraph (a variance component; it needs two seeds or more to
be told from `e`), and `e`, the seed-by-question residual, fitted by REML. A few seeds cannot
estimate a random seed variance by likelihood, so the seeds enter as fixed effects and their
variance is estimated by moments: the sample variance of the `b[s]` less the residual's share of
it, `sigma_seed^2 = max(0, var(b) - sigma_e^2 / questions)` (the paragraph and question effects
are the same in every seed and cancel in the differences between seeds).

The variance of the estimate (the mean of `y`) for another draw of training runs and of test
questions adds four parts:

- `seed`: `sigma_seed^2 / seeds` and `seed_question`: `sigma_e^2 / (seeds x questions)`; their sum
  is what the seed-paired t-test measures (another set of runs, the same questions);
- `paragraph`: `sigma_u^2 x sum((n_p / questions)^2)` and `question`: `sigma_w^2 / questions`;
  their sum is what resampling the test paragraphs with the runs held fixed measures.

`share_seeds` and `share_questions` are each pair's part of that variance, and the interval is
`estimate +- t x sqrt(variance)` with Satterthwaite's degrees of freedom (`seeds - 1` for the runs'
part, `paragraphs - 1` for the questions').
"""
import math
import warnings
from typing import Dict, Optional, Sequence

import numpy as np
from scipy import stats

from srcframework.common.errors import InputError

CONFIDENCE = 0.95


def _frame(values: np.ndarray, clusters: Sequence[str]):
    import pandas as pd

    seeds, questions = values.shape
    return pd.DataFrame({
        "y": values.reshape(-1),
        "seed": np.repeat([f"s{k}" for k in range(seeds)], questions),
        "paragraph": np.tile(np.asarray(clusters, dtype=object), seeds),
        "question": np.tile(np.arange(questions), seeds),
    })


def seed_question_components(values, clusters: Optional[Sequence[str]] = None, confidence: float = CONFIDENCE) -> Dict:
    """
    Fit the model of the module docstring to `values` and split the variance of its estimate.

    # Parameters

    values : `np.ndarray`
        `seeds x questions`: the per-question differences of each seed pair (at least 2 seeds).
    clusters : `Sequence[str]`, optional
        The paragraph of each question (in the columns' order). None: each question is its own
        paragraph (the model then has no separate question effect).
    confidence : `float`, optional (default = `0.95`)

    # Returns

    `{"estimate", "low", "high", "df", "variance", "share_seeds", "share_questions", "components",
    "variance_parts", "seeds", "questions", "paragraphs", "converged", "method"}`; `components`
    holds `seed`, `paragraph`, `question` (None without clusters) and `seed_question`, and
    `variance_parts` their parts of the estimate's variance.
    """
    from statsmodels.regression.mixed_linear_model import MixedLM

    matrix = np.atleast_2d(np.asarray(values, dtype=np.float64))
    seeds, questions = matrix.shape
    if seeds < 2:
        raise InputError(f"the seed and question variance components need at least 2 seeds, got {seeds}")
    if questions < 2 or not np.all(np.isfinite(matrix)):
        raise InputError("the variance components need finite differences on at least 2 questions")
    labels = [str(c) for c in clusters] if clusters is not None else [f"q{i}" for i in range(questions)]
    if len(labels) != questions:
        raise InputError(f"{len(labels)} paragraphs for {questions} questions")
    frame = _frame(matrix, labels)
    nested = clusters is not None and len(set(labels)) < questions
    model = MixedLM.from_formula("y ~ 0 + C(seed)", groups="paragraph", re_formula="1", data=frame,
                                 vc_formula={"question": "0 + C(question)"} if nested else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit(reml=True)
    residual = float(fit.scale)
    paragraph = max(0.0, float(np.asarray(fit.cov_re)[0, 0]))
    question = max(0.0, float(np.asarray(fit.vcomp)[0])) if nested else None
    seed_means = np.asarray(fit.fe_params, dtype=np.float64)
    if not all(np.isfinite([residual, paragraph, question or 0.0, *seed_means])):
        raise InputError("the mixed model gave no finite variance components (the differences may not vary)")
    seed = max(0.0, float(np.var(seed_means, ddof=1)) - residual / questions)
    sizes = np.unique(np.asarray(labels, dtype=object), return_counts=True)[1].astype(np.float64)
    parts = {
        "seed": seed / seeds,
        "seed_question": residual / (seeds * questions),
        "paragraph": paragraph * float(np.sum((sizes / questions) ** 2)),
        "question": (question or 0.0) / questions,
    }
    runs = parts["seed"] + parts["seed_question"]
    tests = parts["paragraph"] + parts["question"]
    variance = runs + tests
    estimate = float(matrix.mean())
    paragraphs = int(sizes.size)
    if variance > 0:
        df = variance ** 2 / (runs ** 2 / (seeds - 1) + (tests ** 2 / (paragraphs - 1) if paragraphs > 1 else 0.0))
        half = float(stats.t.ppf(0.5 + confidence / 2.0, df)) * math.sqrt(variance)
    else:  # no spread at all: a zero-width interval, and no degrees of freedom to speak of
        df, half = None, 0.0
    return {
        "estimate": estimate,
        "low": estimate - half,
        "high": estimate + half,
        "df": None if df is None else float(df),
        "variance": variance,
        "share_seeds": runs / variance if variance > 0 else None,
        "share_questions": tests / variance if variance > 0 else None,
        "components": {"seed": seed, "paragraph": paragraph, "question": question, "seed_question": residual},
        "variance_parts": parts,
        "seeds": seeds,
        "questions": questions,
        "paragraphs": paragraphs,
        "converged": bool(fit.converged) and not any("converge" in str(w.message).lower() for w in caught),
        "method": "MixedLM (REML): seed fixed, paragraph random intercept"
                  + (", question within paragraph" if nested else "") + "; seed variance by moments",
    }
