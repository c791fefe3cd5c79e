"""Running the ``sklearn-rank`` command line in the test process, for the CLI tests."""

from sklearn_rank._cli import main


def run_cli(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sklearn-rank ARGV``, run in this process."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err, command):
    """The one line of an error of ``sklearn-rank COMMAND`` on stderr: no traceback and no
    booster's log around it."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"sklearn-rank {command}: error: "), err
    assert "Traceback" not in err and "[LightGBM]" not in err
    return lines[0]
