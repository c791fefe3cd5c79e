"""The statistics across seeds and data sets name a system by its model, data set and seed in
every refusal (never as a Python tuple)."""

import numpy as np
import pytest

from sklearn_rank.stats import seed_summary

Q = np.arange(6)


def _values(last):
    """Two models under two seeds on data set 'a'; model 'q' under seed 1 given ``last``."""
    values = {("a", model, seed): (Q, np.linspace(0, 1, 6)) for model in "rq" for seed in (0, 1)}
    values["a", "q", 1] = last
    return values


@pytest.mark.parametrize("value, says", [
    ((Q, np.r_[np.nan, np.ones(5)]),
     "The per-query values of model 'q' on data set 'a' under seed 1 for 'm' contain 1 NaN"),
    (np.ones(6), "model 'r' on data set 'a' under seed 0 comes with query ids and model 'q' on "
     "data set 'a' under seed 1 without (model 'r' on data set 'a' under seed 0 is a tuple"),
    ((Q[:4], np.ones(4)), "Systems model 'r' on data set 'a' under seed 0 and model 'q' on data "
     "set 'a' under seed 1 were not evaluated on the same queries (for 'm'): 2 only in model "
     "'r' on data set 'a' under seed 0 (4, 5)"),
    ((Q.astype(str), np.ones(6)), "The query ids of model 'r' on data set 'a' under seed 0 are "
     "numbers and those of model 'q' on data set 'a' under seed 1 are strings"),
    ((np.r_[0, 0, 1, 2, 3, 4], np.ones(6)),
     "qid of model 'q' on data set 'a' under seed 1 holds repeated query ids (0)"),
])
def test_seed_summary_names_the_model_data_set_and_seed(value, says):
    with pytest.raises((ValueError, TypeError)) as caught:
        seed_summary(_values(value), metric="m")
    assert says in str(caught.value)
    assert "('a'," not in str(caught.value)


def test_a_run_of_one_data_set_names_no_data_set():
    values = {(None, "r", 0): (Q, np.ones(6)), (None, "r", 1): (Q, np.r_[np.inf, np.ones(5)])}
    with pytest.raises(ValueError, match=r"The per-query values of model 'r' under seed 1 "):
        seed_summary(values, metric="m")
