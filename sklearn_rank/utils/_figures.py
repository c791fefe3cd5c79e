"""Figures with texts the user wrote: model labels shortened, drawn as written.

The benchmark report and the command line's ``--plot`` draw labels that come from users
(``--model`` labels, names in a results store). Matplotlib is imported only inside
:func:`literal_text`.
"""

import contextlib
import warnings

#: The longest label drawn in a figure; a longer one is shortened in its middle.
LABEL_WIDTH = 30


def figure_label(label):
    """``label`` as a figure shows it: at most :data:`LABEL_WIDTH` characters, its start
    and end kept (labels often differ at the end), so that a long ``--model`` label does
    not crowd the axes out of the figure."""
    label = str(label)
    if len(label) <= LABEL_WIDTH:
        return label
    head = (LABEL_WIDTH - 1) // 2
    return label[:head] + "…" + label[-(LABEL_WIDTH - 1 - head):]


@contextlib.contextmanager
def literal_text():
    """Draw the texts of the figures made and saved inside as they are written.

    matplotlib reads a text holding two ``$`` as a mathtext formula: a model label such as
    ``a$\\foo$`` from the command line or a results store would fail to parse, and end
    the command with a traceback. Its layout warnings (a text too wide for the figure) are
    kept off the output: the figure is drawn all the same.
    """
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=".*(constrained_layout|tight_layout) not applied")
        yield
