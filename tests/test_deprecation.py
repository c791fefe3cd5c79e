"""The deprecation helpers: the two-release FutureWarning cycle of CONTRIBUTING.md."""

import warnings

import pytest

from sklearn_rank.utils._deprecation import deprecated, removal_release, renamed_parameter


@pytest.mark.parametrize(("since", "removed"), [("0.1", "0.3"), ("0.9", "0.11"),
                                                ("1.2.3", "1.4"), ("2.0.dev0", "2.2")])
def test_removal_two_minor_releases_later(since, removed):
    assert removal_release(since) == removed


@pytest.mark.parametrize("since", ["1", "one.two", "", "1.x"])
def test_removal_refuses_what_is_no_release(since):
    with pytest.raises(ValueError, match="since must be a release"):
        removal_release(since)


def test_deprecated_function_warns_on_each_call_and_still_works():
    @deprecated(since="0.2", alternative="sklearn_rank.stats.compare")
    def old(x, *, y=1):
        """Add."""
        return x + y

    for _ in range(2):  # every call, not only the first
        with pytest.warns(FutureWarning,
                          match=r"^old is deprecated since sklearn-rank 0\.2 and will be removed "
                                r"in 0\.4\. Use sklearn_rank\.stats\.compare instead\.$"):
            assert old(1, y=2) == 3
    assert old.__name__ == "old"
    assert ".. deprecated:: 0.2" in old.__doc__


def test_deprecated_class_warns_on_instantiation_and_stays_a_class():
    @deprecated(since="0.3")
    class Old:
        def __init__(self, value):
            self.value = value

    with pytest.warns(FutureWarning, match=r"^Old is deprecated since sklearn-rank 0\.3 and "
                                           r"will be removed in 0\.5\.$"):
        instance = Old(4)
    assert isinstance(instance, Old) and instance.value == 4


def test_renamed_parameter_maps_the_old_name_with_a_warning():
    @renamed_parameter("cutoff", "k", since="0.2")
    def top(values, *, k=None):
        return values[:k]

    with pytest.warns(FutureWarning, match=r"The parameter cutoff= of top\(\) is deprecated "
                                           r"since sklearn-rank 0\.2 .* Use k= instead\."):
        assert top([3, 2, 1], cutoff=1) == [3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns about nothing
        assert top([3, 2, 1], k=2) == [3, 2]
    with pytest.raises(TypeError, match=r"got both k= and its deprecated name cutoff="):
        top([3, 2, 1], cutoff=1, k=2)
