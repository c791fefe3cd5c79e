"""Deprecations: a public name or parameter lives two minor releases with a FutureWarning.

The policy (CONTRIBUTING.md, "Deprecation policy"), as scikit-learn's: something renamed or
removed in release X.Y keeps working in X.Y and X.(Y+1), each use warning with a
``FutureWarning`` that names the replacement and the release that removes it (X.(Y+2)). A
``FutureWarning`` rather than a ``DeprecationWarning``, because Python shows it to the users of
a library by default, not only to its developers. Changes of meaning, where an old spelling
would silently give another number, are not deprecated: the old spelling is refused at once
with an error that names the new one (a deprecation would give the wrong number for two
releases).
"""

import functools
import inspect
import warnings

__all__ = ["deprecated", "removal_release", "renamed_parameter"]


def removal_release(since):
    """The release that removes what release ``since`` deprecates: two minor releases later.

    Parameters
    ----------
    since : str
        The release that deprecates, ``"MAJOR.MINOR"`` or longer (``"0.2.1"``).

    Returns
    -------
    str
        ``"MAJOR.(MINOR + 2)"``.

    Examples
    --------
    >>> removal_release("0.2")
    '0.4'
    >>> removal_release("1.9.1")
    '1.11'
    """
    parts = str(since).split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts[:2]):
        raise ValueError(f"since must be a release such as '0.2', got {since!r}.")
    return f"{int(parts[0])}.{int(parts[1]) + 2}"


def _message(what, since, alternative):
    message = (f"{what} is deprecated since sklearn-rank {since} and will be removed in "
               f"{removal_release(since)}.")
    if alternative:
        message += f" Use {alternative} instead."
    return message


def deprecated(*, since, alternative=None):
    """Mark a public function or class as deprecated: each call warns with a FutureWarning.

    Parameters
    ----------
    since : str
        The release that deprecates it.
    alternative : str, default=None
        What to use instead, as the user would write it (``"sklearn_rank.stats.compare"``).

    Returns
    -------
    decorator : callable
        Wraps a function (each call warns) or a class (each instantiation warns); the
        docstring gains a ``.. deprecated::`` note.

    Examples
    --------
    >>> import warnings
    >>> @deprecated(since="0.2", alternative="new_function")
    ... def old_function(x):
    ...     return x + 1
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old_function(1)
    2
    >>> print(caught[0].category.__name__, caught[0].message)
    FutureWarning old_function is deprecated since sklearn-rank 0.2 and will be removed in 0.4. Use new_function instead.
    """  # noqa: E501

    def decorate(obj):
        message = _message(obj.__name__, since, alternative)
        note = f"\n\n.. deprecated:: {since}\n    {message}\n"
        if inspect.isclass(obj):
            init = obj.__init__

            @functools.wraps(init)
            def __init__(self, *args, **kwargs):
                warnings.warn(message, FutureWarning, stacklevel=2)
                init(self, *args, **kwargs)

            obj.__init__ = __init__
            obj.__doc__ = (obj.__doc__ or "") + note
            return obj

        @functools.wraps(obj)
        def wrapper(*args, **kwargs):
            warnings.warn(message, FutureWarning, stacklevel=2)
            return obj(*args, **kwargs)

        wrapper.__doc__ = (obj.__doc__ or "") + note
        return wrapper

    return decorate


def renamed_parameter(old, new, *, since):
    """Accept a keyword parameter's old name for two releases, warning, under its new name.

    Passing both names is an error: which one to use would be a guess.

    Parameters
    ----------
    old, new : str
        The old and the new keyword names.
    since : str
        The release that renames it.

    Returns
    -------
    decorator : callable

    Examples
    --------
    >>> import warnings
    >>> @renamed_parameter("n", "k", since="0.2")
    ... def top(values, *, k=None):
    ...     return values[:k]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     top([3, 2, 1], n=2)
    [3, 2]
    >>> top([3, 2, 1], n=2, k=2)
    Traceback (most recent call last):
    ...
    TypeError: top() got both k= and its deprecated name n=; pass k= only.
    """

    def decorate(function):
        message = _message(f"The parameter {old}= of {function.__name__}()", since,
                           f"{new}=")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{function.__name__}() got both {new}= and its "
                                    f"deprecated name {old}=; pass {new}= only.")
                warnings.warn(message, FutureWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper

    return decorate
