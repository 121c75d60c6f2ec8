"""The repo's own test of the free-GPU notebook (course/colab/drills.ipynb): executed cell by cell
by a real notebook runner (nbclient, with an IPython kernel, as Colab and Kaggle run it), here on
the CPU, where its GPU cells say they are skipped. It clones this checkout instead of GitHub.
"""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from drills import catalog, runtime

NOTEBOOK = catalog.ROOT / "course" / "colab" / "drills.ipynb"


def cell_output(cell) -> str:
    return "".join(
        o.get("text", "") for o in cell.get("outputs", []) if o["output_type"] == "stream"
    )


def test_the_notebook_runs_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("DRILLS_REPO", str(catalog.ROOT))
    monkeypatch.setenv("NO_COLOR", "1")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()  # raises CellExecutionError, with the cell and its traceback, if a cell fails
    shown = [cell_output(c) for c in notebook.cells if c.cell_type == "code"]
    assert (tmp_path / "triton-drills" / ".venv" / ".ready").exists()
    assert "content/t1_add.md" in shown[1] and "mine/t1_add.py" in shown[1]
    assert "bootstrap: ready" in shown[2]
    assert "t1     Vector add  not started" in shown[3] and "Total 0/100" in shown[3], shown[3]
    assert "Hint 1" in shown[4], shown[4]
    if runtime.current().is_gpu:
        assert "GPU: " in shown[2]
    else:
        assert "No GPU" in shown[2] and "skipped here" in shown[5], shown


def test_the_notebook_asks_for_the_repository_before_anything_else(tmp_path, monkeypatch):
    monkeypatch.delenv("DRILLS_REPO", raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    with pytest.raises(Exception, match="Set REPO_URL"):
        client.execute()
    assert not (tmp_path / "triton-drills").exists()
    assert os.listdir(tmp_path) == []
